import { DeliveryStatus, ListDeliveriesRequest } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { ConsoleHttpError } from '../../http/consoleHttpError';
import { filterQuery, type FilterRefusal } from '../../http/queryFields';
import { parseUtcTimeText } from '../../views/utcTimeInput';

/** The delivery log's states as the page names them, and the service's status for each. */
export const LOG_STATES = {
  delivered: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  waiting: DeliveryStatus.DELIVERY_STATUS_PENDING,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
} as const;
type LogState = keyof typeof LOG_STATES;

const FIELDS = ['state', 'event', 'since', 'until', 'find', 'cursor'] as const;
type LogField = (typeof FIELDS)[number];

/**
 * What the delivery log's GET form asks for, as typed (so the form shows it back, a refused
 * value too): a state, an event type, a time range (typed, UTC), an event or record id, and the
 * cursor of the page. Every field is optional: none is the newest page of everything.
 */
export type LogFilter = Partial<Record<LogField, string>>;

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;
const RECORD_ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

const isLogState = (s: string): s is LogState => Object.hasOwn(LOG_STATES, s);

/** What is wrong with the filter as typed, in words (every field's, together); none: []. */
function logFilterErrors(q: Record<LogField, string>): string[] {
  const errors: string[] = [];
  if (q.state !== '' && !isLogState(q.state))
    errors.push('Choose a state: delivered, waiting or failed.');
  if (q.event !== '' && !EVENT_TYPES.isName(q.event))
    errors.push(`Choose an event type: ${EVENT_TYPES.names.join(', ')}.`);
  for (const key of ['since', 'until'] as const) {
    if (q[key] !== '' && !parseUtcTimeText(q[key]))
      errors.push(
        `Enter "${key === 'since' ? 'From' : 'Before'}" as a UTC time, for example 2026-11-20 14:00, or a day.`,
      );
  }
  const from = q.since && parseUtcTimeText(q.since);
  const before = q.until && parseUtcTimeText(q.until);
  if (from && before && from.getTime() >= before.getTime())
    errors.push('"Before" must be later than "From".');
  if (q.find !== '' && !EVENT_ID.test(q.find) && !RECORD_ID.test(q.find))
    errors.push('Find takes an event id (evt_...) or a record id (sub_..., po_...).');
  if (q.cursor !== '' && !CURSOR.test(q.cursor))
    errors.push('That page link is not one of this log: start again from the newest.');
  return errors;
}

/** A delivery log's filter as asked: as typed, and why it is not one (then nothing is read). */
export interface AskedLog {
  filter: LogFilter;
  refusal?: FilterRefusal;
}

/**
 * The filter of a delivery log's query string (a receiver's or the brand's), as Events and
 * Activity read theirs (filterQuery): what was typed, kept for the form, and its refusal in
 * words, shown above the form with status 400 and no deliveries. Unknown values never reach the
 * service; a refused filter's cursor is dropped (the form does not carry it).
 */
export function logFilterOf(query: Record<string, unknown>): AskedLog {
  const { fields, refusal } = filterQuery(query, FIELDS, (q) => {
    const errors = logFilterErrors(q);
    if (errors.length) throw new ConsoleHttpError(400, 'validation_failed', errors.join(' '));
  });
  const filter: LogFilter = {};
  for (const name of FIELDS) if (fields[name] !== '') filter[name] = fields[name];
  if (refusal) delete filter.cursor;
  return refusal ? { filter, refusal } : { filter };
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
    status:
      f.state && isLogState(f.state)
        ? LOG_STATES[f.state]
        : DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
    event_type: f.event && EVENT_TYPES.isName(f.event) ? EVENT_TYPES.toProto(f.event) : 0,
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
