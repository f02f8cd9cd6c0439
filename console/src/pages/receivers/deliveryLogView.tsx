import { EventTypeField, Field, FindIdField } from '../../views/filterFields';
import { FilterRefusalNotice, filterRefusalId } from '../../views/filterRefusal';
import { UtcTimeInput } from '../../views/utcTimeInput';
import { isFiltered, type LOG_STATES, logQuery, type LogFilter } from './deliveryLogFilter';

const STATE_WORDS: Record<keyof typeof LOG_STATES, string> = {
  delivered: 'Delivered',
  waiting: 'Waiting (due or for a retry)',
  failed: 'Failed',
};

const FORM_ID = 'log-filter';

/**
 * A delivery log's filters (a receiver's, or the brand's at `base`): a GET form (it changes
 * nothing, and its URL can be shared) by state, event type, time range (UTC) and an event or
 * record id. A refused filter is said above the form, which keeps what was typed (as on Events
 * and Activity).
 */
export function DeliveryLogFilters(props: { base: string; filter: LogFilter; refused?: string }) {
  const f = props.filter;
  return (
    <>
      <FilterRefusalNotice formId={FORM_ID} message={props.refused} />
      <form
        method="get"
        action={props.base}
        class="filters"
        id={FORM_ID}
        aria-label="Filter the log"
        aria-describedby={props.refused ? filterRefusalId(FORM_ID) : undefined}
      >
        <Field id="log-state" label="State">
          <select id="log-state" name="state">
            <option value="" selected={!f.state}>
              Any state
            </option>
            {(Object.keys(STATE_WORDS) as Array<keyof typeof STATE_WORDS>).map((s) => (
              <option value={s} selected={f.state === s}>
                {STATE_WORDS[s]}
              </option>
            ))}
          </select>
        </Field>
        <EventTypeField id="log-event" name="event" value={f.event ?? ''} />
        <UtcTimeInput id="log-since" name="since" label="From" value={f.since ?? ''} />
        <UtcTimeInput id="log-until" name="until" label="Before" value={f.until ?? ''} />
        <FindIdField id="log-find" value={f.find ?? ''} placeholder="evt_… or sub_…" />
        <button type="submit" class="secondary">
          Filter
        </button>
        {isFiltered(f) && <a href={props.base}>Clear filters</a>}
      </form>
    </>
  );
}

/**
 * Below the log: older deliveries (the service's cursor, the filter kept) and, on a later
 * page, the way back to the newest. A filtered page may hold fewer rows than a full one and
 * still have older ones: each page reads a bounded stretch of the history.
 */
export function DeliveryLogPager(props: {
  base: string;
  filter: LogFilter;
  nextCursor: string;
  shown: number;
}) {
  const { base, filter } = props;
  if (!props.nextCursor && !filter.cursor) return null;
  const newest = logQuery({ ...filter, cursor: undefined });
  return (
    <nav class="actions" aria-label="Delivery log pages">
      {filter.cursor && <a href={`${base}${newest}`}>Newest deliveries</a>}
      {props.nextCursor && (
        <a href={`${base}${logQuery({ ...filter, cursor: props.nextCursor })}`} rel="next">
          Older deliveries
        </a>
      )}
      {props.nextCursor && props.shown === 0 && (
        <span class="hint">None in this stretch of the history; older ones may match.</span>
      )}
    </nav>
  );
}
