import type { EventOutcome } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { Csrf, Layout, type Viewer } from '../../views/layout';
import { Notice } from '../../views/notice';
import { deliveryStatusName, DeliveryStatusText } from '../receivers/deliveryStatus';

/** The page's filter as its query string carries it (every field '' when absent). */
export interface EventsFilter {
  type: string;
  since: string;
  until: string;
  /** An event id (evt_...) or a record id (po_..., sub_...). */
  find: string;
  cursor: string;
}

function query(f: EventsFilter, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v !== '') params.set(k, v);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The record an event is about, in words: "payouts po_…, paid". */
function recordOf(objectJson: string): string {
  try {
    const o = JSON.parse(objectJson) as { resource?: unknown; id?: unknown; status?: unknown };
    return [o.resource, o.id, o.status].filter((v) => typeof v === 'string').join(' · ');
  } catch {
    return '';
  }
}

function Filters(props: { base: string; filter: EventsFilter }) {
  const f = props.filter;
  const filtered = f.type !== '' || f.since !== '' || f.until !== '' || f.find !== '';
  return (
    <form
      method="get"
      action={`${props.base}/events`}
      class="filters"
      aria-label="Filter the events"
    >
      <label for="ev-type">Event</label>
      <select id="ev-type" name="type">
        <option value="" selected={f.type === ''}>
          Any event
        </option>
        {EVENT_TYPES.names.map((t) => (
          <option value={t} selected={f.type === t}>
            {t}
          </option>
        ))}
      </select>
      <label for="ev-since">From (UTC)</label>
      <input id="ev-since" type="datetime-local" name="since" value={f.since} />
      <label for="ev-until">Before (UTC)</label>
      <input id="ev-until" type="datetime-local" name="until" value={f.until} />
      <label for="ev-find">Event or record id</label>
      <input
        id="ev-find"
        name="find"
        value={f.find}
        placeholder="evt_… or po_…"
        spellcheck={false}
        autocomplete="off"
      />
      <button type="submit" class="secondary">
        Filter
      </button>
      {filtered && <a href={`${props.base}/events`}>Clear filters</a>}
    </form>
  );
}

/** One event: what it is about, and a row per receiver it went to. */
function EventBlock(props: {
  base: string;
  event: EventOutcome;
  viewer: Viewer;
  canResend: boolean;
}) {
  const { base, event } = props;
  const failed = event.deliveries.filter((d) => deliveryStatusName(d.status) === 'failed');
  const type = EVENT_TYPES.fromProto(event.event_type) ?? 'unknown';
  return (
    <section class="event" aria-labelledby={`ev-${event.event_id}`}>
      <h2 id={`ev-${event.event_id}`}>
        <code>{type}</code> <span class="hint">{formatTime(event.created_at)}</span>
      </h2>
      <p>
        {recordOf(event.object_json)} <code class="hint">{event.event_id}</code>
      </p>
      <table>
        <caption class="hint">At each receiver</caption>
        <thead>
          <tr>
            <th scope="col">Receiver</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Delivery</th>
          </tr>
        </thead>
        <tbody>
          {event.deliveries.length === 0 && (
            <tr>
              <td colSpan={5}>No receiver had selected this event type when it happened.</td>
            </tr>
          )}
          {event.deliveries.map((d) => (
            <tr>
              <td>
                <a href={`${base}/receivers/${d.receiver_id}`}>
                  {event.receiver_labels[d.receiver_id] ?? d.receiver_id}
                </a>
              </td>
              <td>
                <DeliveryStatusText delivery={d} />
              </td>
              <td>{d.attempt_count}</td>
              <td>{d.last_status ? `HTTP ${d.last_status}` : d.last_error || '—'}</td>
              <td>
                <a href={`${base}/receivers/${d.receiver_id}/deliveries/${d.id}`}>
                  {props.canResend && deliveryStatusName(d.status) !== 'pending'
                    ? 'Details, resend'
                    : 'Details'}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.canResend && failed.length > 0 && (
        <form method="post" action={`${base}/events/${event.event_id}/resend-failed`}>
          <Csrf token={props.viewer.csrfToken} />
          <button type="submit" class="secondary">
            Resend to the {failed.length} {failed.length === 1 ? 'receiver' : 'receivers'} that
            failed
          </button>
        </form>
      )}
    </section>
  );
}

export function EventsPage(props: {
  viewer: Viewer;
  events: EventOutcome[];
  nextCursor: string;
  retentionDays: number;
  filter: EventsFilter;
  canResend: boolean;
  notice?: string;
  error?: string;
}) {
  const base = `/brands/${props.viewer.brandId}`;
  const { filter } = props;
  return (
    <Layout title="Events" viewer={props.viewer} section="events">
      <h1>Events</h1>
      <p>
        Every business event of the brand, newest first, and what became of it at each receiver. The
        same events are in the API's feed (<code>GET /api/v1/events</code>). Events are kept{' '}
        {props.retentionDays} days; times are UTC.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <Filters base={base} filter={filter} />
      {props.events.length === 0 && <p>No events match.</p>}
      {props.events.map((event) => (
        <EventBlock base={base} event={event} viewer={props.viewer} canResend={props.canResend} />
      ))}
      {(props.nextCursor !== '' || filter.cursor !== '') && (
        <nav class="actions" aria-label="Event pages">
          {filter.cursor !== '' && (
            <a href={`${base}/events${query({ ...filter, cursor: '' })}`}>Newest</a>
          )}
          {props.nextCursor !== '' && (
            <a href={`${base}/events${query({ ...filter, cursor: props.nextCursor })}`} rel="next">
              Older events
            </a>
          )}
        </nav>
      )}
    </Layout>
  );
}
