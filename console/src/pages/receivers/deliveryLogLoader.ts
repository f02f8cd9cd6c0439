import type { Delivery } from '@brand/proto/webhooks/v1';
import type { ConsoleClients } from '../../clients/consoleClients';
import { formRefusal } from '../../http/formRefusal';
import type { FilterRefusal } from '../../http/queryFields';
import type { MemberSession } from '../../session/memberSession';
import { logRequest, type AskedLog, type LogFilter } from './deliveryLogFilter';

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
  /** How long the service keeps deliveries; unknown when a refused filter asked it nothing. */
  retentionDays?: number;
  /** The filter the form shows: as typed, refused or not. */
  filter: LogFilter;
  /** Why the filter as typed is not one (the console's check or the service's): no deliveries. */
  refusal?: FilterRefusal;
}

/** The log of a refused filter: nothing listed, the filter as typed without its cursor. */
const refusedLog = (filter: LogFilter, refusal: FilterRefusal): DeliveryLogPage => ({
  deliveries: [],
  nextCursor: '',
  filter: { ...filter, cursor: undefined },
  refusal,
});

/**
 * A page of a receiver's delivery log or of the brand's, as the member. A filter refused, by
 * the console's check or by the service (a cursor from another log, a range it does not take),
 * lists nothing and keeps what was typed with the reason, as Events and Activity do; never a 5xx.
 */
export async function loadDeliveryLog(
  clients: Pick<ConsoleClients, 'webhooks'>,
  s: Pick<MemberSession, 'assertion'>,
  of: { receiverId: string } | { brandId: string },
  asked: AskedLog,
): Promise<DeliveryLogPage> {
  const { filter } = asked;
  if (asked.refusal) return refusedLog(filter, asked.refusal);
  try {
    const page = await clients.webhooks('listDeliveries', logRequest(of, filter, LOG_PAGE), {
      assertion: s.assertion,
    });
    return {
      deliveries: page.deliveries,
      nextCursor: page.next_cursor,
      retentionDays: page.history_retention_days,
      filter,
    };
  } catch (err) {
    const refused = formRefusal(err);
    if (!refused || refused.httpStatus !== 400) throw err;
    return refusedLog(filter, { code: refused.code, message: refused.message });
  }
}
