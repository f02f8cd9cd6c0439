import type { Delivery } from '@brand/proto/webhooks/v1';
import type { ConsoleClients } from '../../clients/consoleClients';
import { formRefusal } from '../../http/formRefusal';
import type { MemberSession } from '../../session/memberSession';
import { logRequest, type LogFilter } from './deliveryLogFilter';

/**
 * Deliveries per page of a delivery log: one line each, so a page of them with the filters
 * stays within two screens (issue 62).
 */
const LOG_PAGE = 25;

/** A page of a delivery log as the page shows it. */
export interface DeliveryLogPage {
  deliveries: Delivery[];
  /** The cursor of the next (older) page; '' at the end. */
  nextCursor: string;
  retentionDays: number;
  /** The filter the page shows: none when the service refused the one asked for. */
  filter: LogFilter;
  /** The service's reason for refusing the filter asked for. */
  error?: string;
}

/**
 * A page of a receiver's delivery log or of the brand's, as the member. A filter the service
 * refuses (a cursor from another log, a range it does not take) shows the newest deliveries
 * with the service's reason, never a 5xx.
 */
export async function loadDeliveryLog(
  clients: Pick<ConsoleClients, 'webhooks'>,
  s: Pick<MemberSession, 'assertion'>,
  of: { receiverId: string } | { brandId: string },
  filter: LogFilter,
): Promise<DeliveryLogPage> {
  const as = { assertion: s.assertion };
  const read = async (f: LogFilter): Promise<DeliveryLogPage> => {
    const page = await clients.webhooks('listDeliveries', logRequest(of, f, LOG_PAGE), as);
    return {
      deliveries: page.deliveries,
      nextCursor: page.next_cursor,
      retentionDays: page.history_retention_days,
      filter: f,
    };
  };
  try {
    return await read(filter);
  } catch (err) {
    const refused = formRefusal(err);
    if (!refused || refused.httpStatus !== 400) throw err;
    return { ...(await read({})), error: refused.message };
  }
}
