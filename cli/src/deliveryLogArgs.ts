import { InvalidArgumentError } from 'commander';
import { DeliveryStatus, ListDeliveriesRequest } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { parseSince } from './args';

/**
 * The delivery log's filters as brandctl takes them (`receiver deliveries`), and the request
 * they make. States are named as the console names them (delivered, waiting, failed); the
 * service's own words (succeeded, pending) are accepted too.
 */
const STATES: Record<string, DeliveryStatus> = {
  delivered: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  succeeded: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  waiting: DeliveryStatus.DELIVERY_STATUS_PENDING,
  pending: DeliveryStatus.DELIVERY_STATUS_PENDING,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
};

/** --status: delivered, waiting or failed. */
export function parseDeliveryState(value: string): DeliveryStatus {
  const state = STATES[value.trim().toLowerCase()];
  if (state === undefined) throw new InvalidArgumentError('must be delivered, waiting or failed.');
  return state;
}

/** --event: one of the four event types. */
export function parseEventType(value: string): number {
  const name = value.trim();
  if (!EVENT_TYPES.isName(name))
    throw new InvalidArgumentError(`must be one of ${EVENT_TYPES.names.join(', ')}.`);
  return EVENT_TYPES.toProto(name);
}

/** The filters and paging `brandctl receiver deliveries` collects. */
export interface DeliveryLogOptions {
  brand?: string;
  limit?: number;
  status?: DeliveryStatus;
  event?: number;
  since?: string;
  until?: string;
  eventId?: string;
  recordId?: string;
  cursor?: string;
}

/** The ListDeliveries request for these options (times as given; the service checks them). */
export function deliveryLogRequest(
  receiverId: string | undefined,
  o: DeliveryLogOptions,
  now = new Date(),
): ListDeliveriesRequest {
  return ListDeliveriesRequest.fromPartial({
    receiver_id: receiverId ?? '',
    brand_id: o.brand ?? '',
    limit: o.limit ?? 0,
    cursor: o.cursor ?? '',
    status: o.status ?? DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
    event_type: o.event ?? 0,
    since: o.since ? parseSince(o.since, now) : '',
    until: o.until ? parseSince(o.until, now) : '',
    event_id: o.eventId ?? '',
    record_id: o.recordId ?? '',
  });
}
