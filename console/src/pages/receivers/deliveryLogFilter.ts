import { DeliveryStatus, ListDeliveriesRequest } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { parseUtcTimeText } from '../../views/utcTimeInput';
import { firstCharacters } from '@brand/shared/text';

/** The delivery log's states as the page names them, and the service's status for each. */
export const LOG_STATES = {
  delivered: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  waiting: DeliveryStatus.DELIVERY_STATUS_PENDING,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
} as const;
type LogState = keyof typeof LOG_STATES;

/**
 * What the delivery log's GET form asks for, as typed (so the form shows it back): a state,
 * an event type, a time range (typed, UTC), an event or record id, and the cursor of
 * the page. Every field is optional: none is the newest page of everything.
 */
export interface LogFilter {
  state?: LogState;
  event?: EventTypeName;
  since?: string;
  until?: string;
  find?: string;
  cursor?: string;
}

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;
const RECORD_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * A field as typed; a field given twice (?state=a&state=b) or as an object is kept as a value
 * no check accepts, so it is refused in words rather than silently ignored.
 */
const text = (v: unknown): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return '\u0000';
  return v.trim() === '' ? undefined : firstCharacters(v.trim(), 300);
};

/**
 * The filter of a receiver page's query string, or what is wrong with it in words (the page
 * then shows the newest deliveries with that message, status 400). Unknown values never reach
 * the service.
 */
export function logFilterOf(query: Record<string, unknown>): { filter: LogFilter; error?: string } {
  const filter: LogFilter = {};
  const errors: string[] = [];
  const state = text(query.state);
  if (state !== undefined) {
    if (Object.hasOwn(LOG_STATES, state)) filter.state = state as LogState;
    else errors.push('Choose a state: delivered, waiting or failed.');
  }
  const event = text(query.event);
  if (event !== undefined) {
    if (EVENT_TYPES.isName(event)) filter.event = event;
    else errors.push(`Choose an event type: ${EVENT_TYPES.names.join(', ')}.`);
  }
  for (const key of ['since', 'until'] as const) {
    const value = text(query[key]);
    if (value === undefined) continue;
    if (parseUtcTimeText(value)) filter[key] = value;
    else
      errors.push(
        `Enter "${key === 'since' ? 'From' : 'Before'}" as a UTC time, for example 2026-11-20 14:00, or a day.`,
      );
  }
  if (filter.since && filter.until) {
    const from = parseUtcTimeText(filter.since)!;
    const before = parseUtcTimeText(filter.until)!;
    if (from.getTime() >= before.getTime()) errors.push('"Before" must be later than "From".');
  }
  const find = text(query.find);
  if (find !== undefined) {
    if (EVENT_ID.test(find) || RECORD_ID.test(find)) filter.find = find;
    else errors.push('Find takes an event id (evt_...) or a record id (sub_..., po_...).');
  }
  const cursor = text(query.cursor);
  if (cursor !== undefined) {
    if (CURSOR.test(cursor)) filter.cursor = cursor;
    else errors.push('That page link is not one of this log: start again from the newest.');
  }
  return errors.length
    ? { filter: { ...filter, cursor: undefined }, error: errors.join(' ') }
    : { filter };
}

/** True when the log shows only part of the history (a filter or a later page). */
export const isFiltered = (f: LogFilter): boolean =>
  !!(f.state || f.event || f.since || f.until || f.find);

/** The ListDeliveries request for a page of a receiver's log, or of the brand's. */
export function logRequest(
  of: { receiverId: string } | { brandId: string },
  f: LogFilter,
  limit: number,
): ListDeliveriesRequest {
  const utc = (v: string | undefined) => (v ? parseUtcTimeText(v)!.toISOString() : '');
  return ListDeliveriesRequest.fromPartial({
    ...('receiverId' in of ? { receiver_id: of.receiverId } : { brand_id: of.brandId }),
    limit,
    cursor: f.cursor ?? '',
    status: f.state ? LOG_STATES[f.state] : DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
    event_type: f.event ? EVENT_TYPES.toProto(f.event) : 0,
    since: utc(f.since),
    until: utc(f.until),
    event_id: f.find && EVENT_ID.test(f.find) ? f.find : '',
    record_id: f.find && !EVENT_ID.test(f.find) ? f.find : '',
  });
}

/** The query string of the log with this filter (for the next page's link); '' for none. */
export function logQuery(f: LogFilter): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f) as [string, string | undefined][]) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : '';
}
