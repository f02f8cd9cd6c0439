import { DeliveryStatus, type HealthWindow } from '@brand/proto/webhooks/v1';
import type { AuditBatch, AuditStream } from '@brand/proto/webhooks/v1/audit';
import { OnceField } from '../../forms/onceField';
import { shownName } from '../../forms/shownFields';
import { Csrf, Layout, Notice, SecretShownOnce, type Viewer } from '../../views/layout';
import { formatTime } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { attemptOutcome } from '../receivers/attemptWords';
import { HealthPanel, type HealthWindowName } from '../receivers/healthPanel';
import { DATADOG_SITES, KIND_WORDS } from '@brand/shared/webhooks';
import type { AddStreamValues } from './input';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { namedFields, refusalAttrs, RefusalNotice, type NamedField } from '../../views/refusal';

/** A stream's kind in words ("Splunk HEC"); one this console does not know, as it came. */
const kindWords = (kind: string): string => (KIND_WORDS as Record<string, string>)[kind] ?? kind;

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** Where a stream stands, in words (never "OK" while entries wait): a lead and the rest. */
function streamState(s: AuditStream): {
  lead: string;
  rest: string;
  flag?: 'failing' | 'waiting';
} {
  const waiting = entries(s.head - s.delivered_through);
  if (!s.enabled)
    return {
      lead: `Disabled${s.disabled_by_service ? ' by the service' : ''}`,
      rest: `${s.disabled_reason || 'no entries are sent'}; ${waiting} waiting`,
      flag: 'failing',
    };
  if (s.failure_count > 0)
    return {
      lead: 'Failing',
      rest: `since ${formatTime(s.failing_since)} (${s.failure_count} failed attempts in a row): ${s.last_error}; ${waiting} waiting, none lost`,
      flag: 'failing',
    };
  if (s.head > s.delivered_through)
    return {
      lead: 'Sending',
      rest: `${waiting} waiting${s.oldest_waiting_at ? `, the oldest stored ${formatTime(s.oldest_waiting_at)}` : ''}`,
      flag: 'waiting',
    };
  return {
    lead: 'Up to date',
    rest: s.last_delivery_at
      ? `every entry sent (last delivery ${formatTime(s.last_delivery_at)})`
      : 'no entry to send yet',
  };
}

function StateText(props: { stream: AuditStream }) {
  const state = streamState(props.stream);
  return state.flag ? (
    <span class={`flag-${state.flag}`}>
      <strong>{state.lead}</strong> {state.rest}
    </span>
  ) : (
    <>
      {state.lead}: {state.rest}
    </>
  );
}

export interface AuditStreamsPageProps {
  viewer: Viewer;
  streams: AuditStream[];
  limit: number;
  canManage: boolean;
  /** The add form's one-time token: a repeat of the form connects no second stream. */
  onceToken: string;
  error?: string;
  notice?: string;
  form?: Partial<AddStreamValues>;
}

export function AuditStreamsPage(props: AuditStreamsPageProps) {
  const { viewer } = props;
  const base = `/brands/${viewer.brandId}/audit-streams`;
  return (
    <Layout title="Audit streams" viewer={viewer} section="auditStreams">
      <h1>Audit streams</h1>
      <p>
        The brand's audit trail, sent to your SIEM as it happens: every entry of the{' '}
        <a href={`/brands/${viewer.brandId}/activity`}>activity log</a> (members, sign-ins including
        refused ones, keys, receivers, deliveries, plans, single sign-on, these streams) and every
        API request that was refused or failed. Each entry carries a stable <code>id</code> to
        deduplicate on and its <code>position</code> in the brand's trail; a stream gets them in
        that order, at least once, within seconds. A stream starts with what happens after it is
        connected. Integrations that pull read the same entries with a key holding{' '}
        <code>audit:read</code> (<code>GET /api/v1/audit-log</code>).
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {!props.canManage && (
        <Notice>
          Only brand owners connect, change and test audit streams. You are a {viewer.role} of this
          brand: you can see them, not change them.
        </Notice>
      )}
      <DataTable
        label="Audit streams"
        caption={
          <>
            Streams, newest first ({props.streams.length} of at most {props.limit})
          </>
        }
        columns={['Name', 'Destination', 'State', 'Sent through']}
      >
        {props.streams.length === 0 && (
          <tr>
            <td colSpan={4}>No audit streams yet.</td>
          </tr>
        )}
        {props.streams.map((s) => (
          <tr class={streamState(s).flag === 'failing' ? 'failing' : undefined}>
            <td>
              <a href={`${base}/${s.id}`}>{s.label}</a>
            </td>
            <td>
              {kindWords(s.kind)}
              <br />
              <code class="path">{s.url}</code>
            </td>
            <td>
              <StateText stream={s} />
            </td>
            <td>
              position {s.delivered_through} of {s.head}
            </td>
          </tr>
        ))}
      </DataTable>
      {props.canManage && props.streams.length < props.limit && (
        <AddStreamForm base={base} viewer={viewer} form={props.form} onceToken={props.onceToken} />
      )}
      <h2>What each destination gets</h2>
      <ul>
        <li>
          <strong>HTTPS (JSON lines)</strong>: a POST of <code>application/x-ndjson</code>, one
          entry a line, signed like a webhook (<code>X-Service-Timestamp</code>,{' '}
          <code>X-Service-Signature: sha256=…</code> over <code>timestamp.body</code> with the
          stream's secret, shown once; <code>X-Service-Attempt</code>).
        </li>
        <li>
          <strong>Splunk HEC</strong>: <code>Authorization: Splunk &lt;token&gt;</code>, one event
          envelope per entry (<code>time</code>, <code>sourcetype: _json</code>, your index if
          given, the entry as <code>event</code>) to your collector URL.
        </li>
        <li>
          <strong>Datadog</strong>: <code>DD-API-KEY</code>, the logs intake of your site, one log
          per entry (<code>ddsource: brand-records</code>, tags <code>brand_id</code>,{' '}
          <code>kind</code>, <code>action</code>; the entry under <code>audit</code>).
        </li>
      </ul>
      <p>
        A destination that fails is retried on the webhooks' schedule while the entries wait in
        order; the owners are mailed once when it starts failing and once when it recovers, and it
        catches up by itself. After 5 days without a 2xx the service disables it; enabled again, it
        goes on where it stopped. Tokens and API keys are sealed and never shown again.
      </p>
    </Layout>
  );
}

function AddStreamForm(props: {
  base: string;
  viewer: Viewer;
  form?: Partial<AddStreamValues>;
  onceToken: string;
}) {
  const kind = props.form?.kind ?? 'https';
  return (
    <section aria-labelledby="add-stream">
      <h2 id="add-stream">Connect a stream</h2>
      <form class="stack" method="post" action={props.base}>
        <Csrf token={props.viewer.csrfToken} />
        <OnceField token={props.onceToken} />
        <fieldset>
          <legend>Destination</legend>
          {(['https', 'splunk_hec', 'datadog'] as const).map((k) => (
            <label>
              <input type="radio" name="kind" value={k} checked={kind === k} /> {KIND_WORDS[k]}{' '}
            </label>
          ))}
        </fieldset>
        <label for="stream-label">Name</label>
        <input
          id="stream-label"
          name="label"
          type="text"
          required
          maxLength={100}
          value={props.form?.label ?? ''}
        />
        <label for="stream-url">URL</label>
        <input
          id="stream-url"
          name="url"
          type="url"
          maxLength={2048}
          value={props.form?.url ?? ''}
          aria-describedby="stream-url-hint"
        />
        <p id="stream-url-hint" class="hint">
          HTTPS: your collector (<code>https://siem.example.com/audit</code>). Splunk: your HEC
          endpoint (<code>https://splunk.example.com:8088/services/collector/event</code>). Datadog:
          leave empty to use your site's logs intake. Public https addresses only, checked now and
          at every connection.
        </p>
        <label for="stream-token">Splunk HEC token or Datadog API key</label>
        <input
          id="stream-token"
          name="token"
          type="password"
          autocomplete="off"
          maxLength={512}
          aria-describedby="stream-token-hint"
        />
        <p id="stream-token-hint" class="hint">
          Sealed when saved and never shown again. An HTTPS stream needs none: a signing secret is
          made for it and shown once.
        </p>
        <label for="stream-site">Datadog site</label>
        <select id="stream-site" name="datadog_site">
          <option value="">(not Datadog)</option>
          {DATADOG_SITES.map((s) => (
            <option value={s} selected={props.form?.datadog_site === s}>
              {s}
            </option>
          ))}
        </select>
        <label for="stream-index">Splunk index (optional)</label>
        <input
          id="stream-index"
          name="splunk_index"
          type="text"
          maxLength={80}
          value={props.form?.splunk_index ?? ''}
        />
        <div>
          <button type="submit">Connect stream</button>
        </div>
      </form>
    </section>
  );
}

const STATUS_WORDS: Record<number, string> = {
  [DeliveryStatus.DELIVERY_STATUS_SUCCEEDED]: 'Delivered',
  [DeliveryStatus.DELIVERY_STATUS_FAILED]: 'Failed',
};

function batchStatus(b: AuditBatch): string {
  return (
    STATUS_WORDS[b.status] ??
    (b.attempt_count === 0
      ? 'Queued'
      : `Waiting to retry${b.next_attempt_at ? ` at ${formatTime(b.next_attempt_at)}` : ''}`)
  );
}

export function AuditStreamPage(props: {
  viewer: Viewer;
  stream: AuditStream;
  health: HealthWindow[];
  healthWindow: HealthWindowName;
  deliveries: AuditBatch[];
  canManage: boolean;
  notice?: string;
  error?: string;
  /** The settings form's values when shown again with a refusal (else the stream's). */
  form?: Record<string, string>;
  /** The settings a refused save named: someone else changed them too (409). */
  conflicts?: readonly string[];
}) {
  const { viewer, stream: s } = props;
  const base = `/brands/${viewer.brandId}/audit-streams/${s.id}`;
  return (
    <Layout title={`Audit stream ${s.label}`} viewer={viewer} section="auditStreams">
      <p>
        <a href={`/brands/${viewer.brandId}/audit-streams`}>Audit streams</a>
      </p>
      <h1>{s.label}</h1>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      <RefusalNotice
        message={props.error}
        fields={namedFields(props.conflicts, STREAM_EDIT_FIELDS)}
      />
      <dl>
        <dt>Destination</dt>
        <dd>
          {kindWords(s.kind)}: <code class="path">{s.url}</code>
          {s.datadog_site && <> (site {s.datadog_site})</>}
          {s.splunk_index && <> (index {s.splunk_index})</>}
        </dd>
        <dt>State</dt>
        <dd>
          <StateText stream={s} />
        </dd>
        <dt>Sent through</dt>
        <dd>
          position {s.delivered_through} of the brand's {s.head} (it started after position{' '}
          {s.started_after})
        </dd>
        <dt>Connected</dt>
        <dd>
          {formatTime(s.created_at)} by {s.created_by}
        </dd>
      </dl>
      {props.canManage && (
        <form method="post" action={`${base}/test`} class="actions">
          <Csrf token={viewer.csrfToken} />
          <button type="submit" disabled={!s.enabled}>
            Test
          </button>
          <span class="hint">
            Queues one test entry (<code>"test": true</code>, position 0) to this stream; queued is
            not delivered: its outcome appears below.
          </span>
        </form>
      )}
      {s.set_aside > 0 && <SetAsidePanel base={base} stream={s} canManage={props.canManage} />}
      <HealthPanel base={base} windows={props.health} selected={props.healthWindow} />
      <h2>Last deliveries</h2>
      <DataTable
        label="Batches sent"
        caption="Newest first; each delivery carries a run of positions, in order"
        columns={['Created', 'Entries', 'State', 'Attempts', 'Last answer']}
      >
        {props.deliveries.length === 0 && (
          <tr>
            <td colSpan={5}>No deliveries yet.</td>
          </tr>
        )}
        {props.deliveries.map((b) => {
          const last = b.attempts.at(-1);
          return (
            <tr>
              <td>
                <UtcTime at={b.created_at} />
              </td>
              <td>
                {b.test
                  ? 'a test entry'
                  : b.first_position === b.last_position
                    ? `position ${b.first_position}`
                    : `positions ${b.first_position}–${b.last_position}`}
              </td>
              <td>{batchStatus(b)}</td>
              <td>{b.attempt_count}</td>
              <td>{last ? attemptOutcome(last) : '—'}</td>
            </tr>
          );
        })}
      </DataTable>
      {props.canManage && (
        <StreamSettings
          base={base}
          viewer={viewer}
          stream={s}
          form={props.form}
          conflicts={props.conflicts}
        />
      )}
    </Layout>
  );
}

/** The settings form's fields of a stream as shown (a kind's own fields only). */
export function shownStreamFields(s: AuditStream): Record<string, string> {
  return {
    label: s.label,
    url: s.url,
    ...(s.kind === 'datadog' ? { datadog_site: s.datadog_site } : {}),
    ...(s.kind === 'splunk_hec' ? { splunk_index: s.splunk_index } : {}),
  };
}

/** The settings form's fields as a refusal names and links them. */
const STREAM_EDIT_FIELDS: Readonly<Record<string, NamedField>> = {
  label: { id: 'edit-label', label: 'Name' },
  url: { id: 'edit-url', label: 'URL' },
  datadog_site: { id: 'edit-site', label: 'Datadog site' },
  splunk_index: { id: 'edit-index', label: 'Splunk index' },
};

function StreamSettings(props: {
  base: string;
  viewer: Viewer;
  stream: AuditStream;
  form?: Record<string, string>;
  conflicts?: readonly string[];
}) {
  const s = props.stream;
  const formValue = (name: string, stored: string) => props.form?.[name] ?? stored;
  const named = (field: string): boolean => props.conflicts?.includes(field) ?? false;
  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <form class="stack" method="post" action={props.base}>
        <Csrf token={props.viewer.csrfToken} />
        {/* what the page showed: a save sends only what was changed (forms/shownFields.ts) */}
        {Object.entries(shownStreamFields(s)).map(([name, value]) => (
          <input type="hidden" name={shownName(name)} value={value} />
        ))}
        <label for="edit-label">Name</label>
        <input
          id="edit-label"
          name="label"
          type="text"
          required
          maxLength={100}
          value={formValue('label', s.label)}
          {...refusalAttrs(named('label'))}
        />
        <label for="edit-url">URL</label>
        <input
          id="edit-url"
          name="url"
          type="url"
          maxLength={2048}
          value={formValue('url', s.url)}
          {...refusalAttrs(named('url'))}
        />
        {s.kind !== 'https' && (
          <>
            <label for="edit-token">
              New {s.kind === 'datadog' ? 'Datadog API key' : 'HEC token'} (leave empty to keep the
              current one; needed again when the URL's host changes)
            </label>
            <input
              id="edit-token"
              name="token"
              type="password"
              autocomplete="off"
              maxLength={512}
            />
          </>
        )}
        {s.kind === 'datadog' && (
          <>
            <label for="edit-site">Datadog site</label>
            <select id="edit-site" name="datadog_site" {...refusalAttrs(named('datadog_site'))}>
              {DATADOG_SITES.map((site) => (
                <option value={site} selected={formValue('datadog_site', s.datadog_site) === site}>
                  {site}
                </option>
              ))}
            </select>
          </>
        )}
        {s.kind === 'splunk_hec' && (
          <>
            <label for="edit-index">Splunk index</label>
            <input
              id="edit-index"
              name="splunk_index"
              type="text"
              maxLength={80}
              value={formValue('splunk_index', s.splunk_index)}
              {...refusalAttrs(named('splunk_index'))}
            />
          </>
        )}
        <div>
          <button type="submit">Save</button>
        </div>
      </form>
      <form
        method="post"
        action={`${props.base}/${s.enabled ? 'disable' : 'enable'}`}
        class="actions"
      >
        <Csrf token={props.viewer.csrfToken} />
        <button type="submit" class={s.enabled ? 'secondary' : undefined}>
          {s.enabled ? 'Disable' : 'Enable'}
        </button>
        <span class="hint">
          {s.enabled
            ? 'A disabled stream is sent nothing; its entries wait, and it goes on where it stopped once enabled.'
            : 'Enabled, it is sent every entry it has not been sent yet, in order.'}
        </span>
      </form>
      <p>
        <a href={`${props.base}/remove`}>Remove this stream…</a>
      </p>
    </section>
  );
}

/** What "set aside" means, in the panel and on the page that asks to send them again. */
const setAsideWords = (n: number) =>
  n === 1
    ? 'its destination refused it as too large, even alone, on every attempt of a round of retries, so the stream went on without it. It is still in the audit log.'
    : 'its destination refused each as too large, even alone, on every attempt of a round of retries, so the stream went on without them. They are still in the audit log.';

/** The entries a stream set aside, with the way to send them again once the destination takes them. */
function SetAsidePanel(props: { base: string; stream: AuditStream; canManage: boolean }) {
  const n = props.stream.set_aside;
  return (
    <section aria-labelledby="set-aside">
      <h2 id="set-aside">Set aside</h2>
      <p>
        <span class="flag-failing">
          <strong>{entries(n)} set aside:</strong>
        </span>{' '}
        {setAsideWords(n)}
      </p>
      {props.canManage && (
        <p>
          <a href={`${props.base}/resend-set-aside`}>Send {n === 1 ? 'it' : 'them'} again…</a>{' '}
          <span class="hint">once the destination accepts larger requests.</span>
        </p>
      )}
    </section>
  );
}

/** Asks before a stream's set-aside entries are sent again, saying they arrive out of order. */
export function ResendSetAsidePage(props: { viewer: Viewer; stream: AuditStream }) {
  const { viewer, stream } = props;
  const base = `/brands/${viewer.brandId}/audit-streams/${stream.id}`;
  const n = stream.set_aside;
  return (
    <Layout title="Send set-aside entries again" viewer={viewer} section="auditStreams">
      <h1>
        Send {entries(n)} to “{stream.label}” again?
      </h1>
      <p>
        {n === 1 ? 'This entry was' : 'These entries were'} set aside: {setAsideWords(n)}
      </p>
      <p>
        {n === 1 ? 'It is' : 'Each is'} sent once more, with a new round of retries.{' '}
        <strong>{n === 1 ? 'It arrives' : 'They arrive'} out of order</strong>, after entries sent
        since; each carries its position, which says where it belongs. At most 100 are sent at a
        time.
      </p>
      <PostButton action={`${base}/resend-set-aside`} csrfToken={viewer.csrfToken} cancel={base}>
        Send again
      </PostButton>
    </Layout>
  );
}

export function RemoveStreamPage(props: { viewer: Viewer; stream: AuditStream }) {
  const { viewer, stream } = props;
  const base = `/brands/${viewer.brandId}/audit-streams/${stream.id}`;
  return (
    <Layout title="Remove audit stream" viewer={viewer} section="auditStreams">
      <h1>Remove “{stream.label}”?</h1>
      <p>
        It is sent nothing more, and its deliveries are removed with it. The audit trail itself
        stays (the activity log, <code>GET /api/v1/audit-log</code>, other streams).
      </p>
      <PostButton
        action={`${base}/remove`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={base}
      >
        Remove this stream
      </PostButton>
    </Layout>
  );
}

/** The only time an HTTPS stream's signing secret is shown (no-store; gone once read). */
export function StreamSecretPage(props: {
  viewer: Viewer;
  created?: { label: string; secret: string; streamId: string };
}) {
  const { viewer, created } = props;
  return (
    <Layout
      title="New audit stream"
      viewer={viewer}
      section="auditStreams"
      scripts={['/static/copy.js']}
    >
      {created ? (
        <>
          <h1>“{created.label}” is connected</h1>
          <SecretShownOnce secret={created.secret} copyLabel="Copy secret">
            This is the only time the signing secret is shown. Copy it to your collector now:
            reloading this page will not show it again.
          </SecretShownOnce>
          <p>
            Verify every request: HMAC-SHA256 with this secret over <code>X-Service-Timestamp</code>
            , a period and the raw body, compared in constant time with{' '}
            <code>X-Service-Signature</code>; refuse a timestamp more than 5 minutes off. A stream
            sends no <code>X-Service-Event</code>: a webhook verifier refuses it, and the TypeScript
            client's <code>verifyAuditStreamDelivery</code> does all of this. Each line of the body
            is one entry; deduplicate on its <code>id</code>.
          </p>
          <p>
            <a href={`/brands/${viewer.brandId}/audit-streams/${created.streamId}`}>
              Open the stream
            </a>
          </p>
        </>
      ) : (
        <>
          <h1>This secret is no longer shown</h1>
          <Notice tone="error">
            A signing secret is shown exactly once. If you did not copy it, remove the stream and
            connect it again.
          </Notice>
        </>
      )}
    </Layout>
  );
}
