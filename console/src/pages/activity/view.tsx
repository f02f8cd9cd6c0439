import type { ActivityEntry } from '@brand/proto/activity/v1';
import type { ActivityFilterFields } from '@brand/shared/activity';
import { EXPORT_MAX_ROWS } from '@brand/shared/export';
import { UtcTime } from '../../views/utcTime';
import { Field } from '../../views/filterFields';
import { Layout, type Viewer } from '../../views/layout';
import { UtcTimeInput } from '../../views/utcTimeInput';
import { breaksAfter } from '../../views/wrapPoints';
import { ClientAddress } from '../../views/clientAddress';
import { DataTable } from '../../views/dataTable';
import { FilterRefusalNotice, filterRefusalId } from '../../views/filterRefusal';

/** The actions the three services write (proto/brand/activity/v1), grouped by kind for the filter. */
const ACTIONS: Record<string, string[]> = {
  'key.': ['key.created', 'key.revoked', 'key.rolled', 'key.expiry_set', 'key.expired'],
  'member.': [
    'member.invited',
    'member.role_changed',
    'member.removed',
    'member.signed_in',
    'member.sign_in_refused',
    'member.signed_out',
    'member.session_ended',
    'member.passkey_added',
    'member.passkey_removed',
  ],
  'brand.': ['brand.sign_in_policy_changed'],
  'receiver.': [
    'receiver.added',
    'receiver.changed',
    'receiver.disabled',
    'receiver.removed',
    'receiver.tested',
    'receiver.secret_rotation_started',
    'receiver.secret_rotation_cancelled',
    'receiver.secret_switch_scheduled',
    'receiver.secret_switched',
  ],
  'delivery.': ['delivery.resent', 'delivery.retried'],
  'deliveries.': ['deliveries.recovered'],
  'plan.': ['plan.cancelled', 'plan.completed'],
};

function query(filters: ActivityFilterFields, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filters, ...extra })) if (v !== '') p.set(k, v);
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

const FORM_ID = 'activity-filter';

function FilterForm(props: { base: string; filters: ActivityFilterFields; refused: boolean }) {
  const f = props.filters;
  const known = Object.entries(ACTIONS).flatMap(([kind, list]) => [kind, ...list]);
  return (
    <form
      method="get"
      action={`${props.base}/activity`}
      class="filters"
      id={FORM_ID}
      aria-label="Filter activity"
      aria-describedby={props.refused ? filterRefusalId(FORM_ID) : undefined}
    >
      <Field id="act-actor" label="Who (email or mem_…)">
        <input
          id="act-actor"
          type="text"
          name="actor"
          value={f.actor}
          size={24}
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
      <Field id="act-action" label="What">
        <select id="act-action" name="action">
          <option value="" selected={f.action === ''}>
            Any action
          </option>
          {f.action !== '' && !known.includes(f.action) && (
            <option value={f.action} selected>
              {f.action}
            </option>
          )}
          {Object.entries(ACTIONS).map(([kind, list]) => (
            <optgroup label={kind.slice(0, -1)}>
              <option value={kind} selected={f.action === kind}>
                every {kind.slice(0, -1)} action
              </option>
              {list.map((a) => (
                <option value={a} selected={f.action === a}>
                  {a}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </Field>
      <Field id="act-subject" label="About (id)">
        <input
          id="act-subject"
          type="text"
          name="subject_id"
          value={f.subject_id}
          size={18}
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
      <UtcTimeInput id="act-since" name="since" label="From" value={f.since} />
      <UtcTimeInput id="act-until" name="until" label="Before" value={f.until} />
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** Where a change came from: the address, and the browser's User-Agent in full, small. */
function ClientCell(props: { address: string; userAgent: string }) {
  if (props.address === '' && props.userAgent === '') return <span class="hint">—</span>;
  return (
    <>
      <ClientAddress address={props.address} />
      {props.userAgent !== '' && <span class="hint ua"> {props.userAgent}</span>}
    </>
  );
}

export function ActivityPage(props: {
  viewer: Viewer;
  entries: ActivityEntry[];
  nextCursor: string;
  /** Not the newest page: offer the way back to it. */
  paged: boolean;
  filters: ActivityFilterFields;
  unavailable: string[];
  /** Why the filters as typed are not ones (nothing listed then, and no export offered). */
  refused?: string;
}) {
  const base = `/brands/${props.viewer.brandId}`;
  const filtered = Object.values(props.filters).some((v) => v !== '');
  return (
    <Layout title="Activity" viewer={props.viewer} section="activity">
      <h1>Activity</h1>
      <p>
        Who did what in the Developers area, newest first: keys, receivers and deliveries, plans,
        members and sign-ins (refused ones too, with the reason). Each service keeps the log of the
        changes it owns. Entries are kept for as long as the brand exists (nothing is deleted by
        age); times are UTC. “From” is the address and browser of the request that made the change;
        brandctl for an operator’s command line, and empty for background work.
      </p>
      <FilterRefusalNotice formId={FORM_ID} message={props.refused} />
      <FilterForm base={base} filters={props.filters} refused={!!props.refused} />
      {!props.refused && (
        <p>
          Download everything these filters match (newest first, at most{' '}
          {EXPORT_MAX_ROWS.toLocaleString('en')} entries):{' '}
          <a href={`${base}/activity/export${query(props.filters, { format: 'csv' })}`} download>
            CSV
          </a>{' '}
          ·{' '}
          <a href={`${base}/activity/export${query(props.filters, { format: 'jsonl' })}`} download>
            JSON Lines
          </a>
        </p>
      )}
      {props.unavailable.length > 0 && (
        <p class="notice warn" role="status">
          Not shown right now (the service did not answer): {props.unavailable.join(', ')}.
        </p>
      )}
      <DataTable
        label="Activity"
        caption={
          <>
            {props.refused ? (
              'Entries: none shown until the filters are corrected'
            ) : (
              <>
                {filtered ? 'Matching entries' : 'Entries'}, newest first, {props.entries.length} on
                this page
              </>
            )}
          </>
        }
        columns={['When', 'Who', 'What', 'Details', 'From']}
      >
        {props.entries.length === 0 && (
          <tr>
            <td colSpan={5}>
              {props.refused
                ? 'Correct the filters above to see entries.'
                : filtered
                  ? 'Nothing matches these filters.'
                  : 'Nothing yet.'}
            </td>
          </tr>
        )}
        {props.entries.map((e) => (
          <tr>
            <td class="when">
              <UtcTime at={e.created_at} />
            </td>
            <td>{e.actor_email}</td>
            <td>
              <code class="name">{breaksAfter('.', e.action)}</code>
            </td>
            <td>
              {e.summary} {e.subject_id && <code class="hint">{e.subject_id}</code>}
            </td>
            <td>
              <ClientCell address={e.client_address} userAgent={e.user_agent} />
            </td>
          </tr>
        ))}
      </DataTable>
      {(props.nextCursor !== '' || props.paged) && (
        <nav class="actions" aria-label="Activity pages">
          {props.paged && <a href={`${base}/activity${query(props.filters)}`}>Newest</a>}
          {props.nextCursor !== '' && (
            <a
              href={`${base}/activity${query(props.filters, { cursor: props.nextCursor })}`}
              rel="next"
            >
              Older entries
            </a>
          )}
        </nav>
      )}
    </Layout>
  );
}
