import type { EventOutcome } from '@brand/proto/webhooks/v1';
import { ATTEMPTS_PER_ROUND } from '@brand/shared/webhooks';
import { EventTypeField, FindIdField } from '../../views/filterFields';
import { FilterRefusalNotice, filterRefusalId } from '../../views/filterRefusal';
import { Layout, type Viewer } from '../../views/layout';
import { Notice } from '../../views/notice';
import { UtcTimeInput } from '../../views/utcTimeInput';
import { EventRow, type EventRights } from './eventRow';

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

const FORM_ID = 'events-filter';

function Filters(props: { base: string; filter: EventsFilter; refused: boolean }) {
  const f = props.filter;
  const filtered = f.type !== '' || f.since !== '' || f.until !== '' || f.find !== '';
  return (
    <form
      method="get"
      action={`${props.base}/events`}
      class="filters"
      id={FORM_ID}
      aria-label="Filter the events"
      aria-describedby={props.refused ? filterRefusalId(FORM_ID) : undefined}
    >
      <EventTypeField id="ev-type" name="type" value={f.type} />
      <UtcTimeInput id="ev-since" name="since" label="From" value={f.since} />
      <UtcTimeInput id="ev-until" name="until" label="Before" value={f.until} />
      <FindIdField id="ev-find" value={f.find} placeholder="evt_… or po_…" />
      <button type="submit" class="secondary">
        Filter
      </button>
      {filtered && <a href={`${props.base}/events`}>Clear filters</a>}
    </form>
  );
}

/**
 * Every business event of the brand, newest first (the events feed's order), one line each with
 * what became of it at the receivers; a line opens on each receiver's delivery (EventRow).
 */
export function EventsPage(props: {
  viewer: Viewer;
  events: EventOutcome[];
  nextCursor: string;
  /** How long the service keeps events; unknown when a refused filter asked it nothing. */
  retentionDays?: number;
  filter: EventsFilter;
  rights: EventRights;
  notice?: string;
  error?: string;
  /** Why the filter as typed is not one (the page then lists nothing, status 400). */
  refused?: string;
}) {
  const base = `/brands/${props.viewer.brandId}`;
  const { filter } = props;
  return (
    <Layout title="Events" viewer={props.viewer} section="events">
      <h1>Events</h1>
      <p class="hint">
        Every business event of the brand, newest first, as the API's feed has them (
        <code>GET /api/v1/events</code>)
        {props.retentionDays !== undefined && <>, kept {props.retentionDays} days</>}; times are
        UTC. Open a line for each receiver's delivery.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <FilterRefusalNotice formId={FORM_ID} message={props.refused} />
      <Filters base={base} filter={filter} refused={!!props.refused} />
      <table class="stack events">
        <caption class="visually-hidden">Events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Record</th>
            <th scope="col">Time</th>
            <th scope="col">Deliveries</th>
          </tr>
        </thead>
        <tbody>
          {props.events.length === 0 && (
            <tr>
              <td colSpan={4}>
                {props.refused ? 'Correct the filter above to see events.' : 'No events match.'}
              </td>
            </tr>
          )}
          {props.events.map((event) => (
            <EventRow base={base} event={event} viewer={props.viewer} rights={props.rights} />
          ))}
        </tbody>
      </table>
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
      {(props.rights.canRetry || props.rights.canResend) && (
        <p class="hint">
          Retry now makes a waiting delivery's next attempt now, one of its {ATTEMPTS_PER_ROUND}{' '}
          attempts; Resend sends a failed one again as a new round of {ATTEMPTS_PER_ROUND}.
        </p>
      )}
    </Layout>
  );
}
