import type { ApiKey } from '@brand/proto/access/v1';
import { EXPORT_MAX_ROWS } from '@brand/shared/export';
import type { ListRequestLogResponse, RequestLogEntry } from '@brand/proto/access/v1/usage';
import { formatTime } from '../../views/format';
import { Field, KeyOptions } from '../../views/filterFields';
import { Layout, type Viewer } from '../../views/layout';
import { surfaceOf } from './usageSeries';
import { UtcTimeInput } from '../../views/utcTimeInput';
import { UtcTime } from '../../views/utcTime';
import { breaksBefore } from '../../views/wrapPoints';
import { ClientAddress } from '../../views/clientAddress';
import { DataTable } from '../../views/dataTable';

export interface RequestLogPageProps {
  viewer: Viewer;
  log: ListRequestLogResponse;
  keys: ApiKey[];
  filters: { key: string; code: string; since: string; until: string };
  /** Owners see the reason behind each 401. */
  showReasons: boolean;
  codes: readonly string[];
}

/** The owner-only reason of a 401 in words; the API itself only ever said invalid_key or missing_key. */
export function reasonWords(e: RequestLogEntry): string {
  switch (e.reason) {
    case 'revoked':
      return `The key was revoked${e.reason_at ? ` on ${formatTime(e.reason_at)}` : ''}${e.reason_by ? ` by ${e.reason_by}` : ''}.`;
    case 'expired':
      return `The key expired${e.reason_at ? ` on ${formatTime(e.reason_at)}` : ''}${e.reason_by ? `: it was rolled, and ${e.reason_by} replaced it` : ''}.`;
    case 'wrong_environment':
      return 'A test key was used against this live deployment.';
    case 'other_brand':
      return "A key of another brand was sent from an address that uses this brand's keys.";
    case 'no_key':
      return 'No key: no Authorization header, or not the Bearer scheme.';
    case 'unknown_key':
      return 'An unknown key: not one of ours, or mistyped.';
    default:
      return '';
  }
}

function keyCell(e: RequestLogEntry) {
  if (e.key_id !== '') {
    return (
      <>
        {e.key_name} <code class="token">{e.key_prefix}…</code>
      </>
    );
  }
  return e.reason === 'unknown_key' || e.reason === 'other_brand' || e.error_code === 'invalid_key'
    ? 'unknown key'
    : 'no key';
}

/**
 * The answer the request got (its status and error code) and, to an owner, why a key was refused
 * in words under it: the reason belongs to the answer, and a column of its own would squeeze
 * every other column of the log.
 */
function AnswerCell(props: { entry: RequestLogEntry; showReason: boolean }) {
  const e = props.entry;
  const reason = props.showReason ? reasonWords(e) : '';
  return (
    <>
      {e.status} <code class="token">{e.error_code}</code>
      {reason && (
        <>
          <br />
          <span class="email">{reason}</span>
        </>
      )}
    </>
  );
}

/**
 * Where a request came from: the address the API saw (an IPv6 one may wrap after a colon), and
 * under it the surface it used.
 */
function FromCell(props: { entry: RequestLogEntry }) {
  const address = props.entry.client_address;
  return (
    <>
      <ClientAddress address={address ?? ''} otherwise="—" />
      <br />
      <span class="hint">
        via {surfaceOf(props.entry.surface) === 'assistant' ? 'the assistant endpoint' : 'REST'}
      </span>
    </>
  );
}

/**
 * The request log: a brand's refused and failed requests of the last 7 days (at most the
 * newest 10,000), newest first, filtered by key, code and time range, paged and exported
 * (CSV, JSON Lines); owners also see why a 401 was refused.
 */
export function RequestLogPage(props: RequestLogPageProps) {
  const { log, viewer, filters } = props;
  const base = `/brands/${viewer.brandId}`;
  const withFilters = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...extra })) if (v !== '') p.set(k, v);
    return p.toString();
  };
  const filtered = Object.values(filters).some((v) => v !== '');
  return (
    <Layout title="Request log" viewer={viewer} section="requests">
      <h1>Request log</h1>
      <p>
        Requests that were refused or failed (every 4xx and 5xx answer, not the successful ones),
        newest first. The log keeps the last {log.retention_days} days, at most the newest{' '}
        {log.bound.toLocaleString('en')} requests of this brand. Paths are shown without their query
        string, and a key is never shown in full. Quote the request id when you ask for help.
      </p>
      {props.showReasons ? (
        <p>
          As an owner you also see, under each refused key's answer, why it was refused: the API
          itself answers <code>invalid_key</code> to everyone, and only owners see the reason.
        </p>
      ) : (
        <p class="notice" role="note">
          Only brand owners see why a key was refused (the API answers <code>invalid_key</code> to
          everyone).
        </p>
      )}
      <form method="get" action={`${base}/requests`} class="filters">
        <Field id="log-key" label="Key">
          <select id="log-key" name="key">
            <option value="" selected={filters.key === ''}>
              Any key
            </option>
            <option value="none" selected={filters.key === 'none'}>
              No key of this brand
            </option>
            <KeyOptions keys={props.keys} value={filters.key} />
          </select>
        </Field>
        <Field id="log-code" label="Error code">
          <select id="log-code" name="code">
            <option value="" selected={filters.code === ''}>
              Any code
            </option>
            {props.codes.map((c) => (
              <option value={c} selected={c === filters.code}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <UtcTimeInput id="log-since" name="since" label="From" value={filters.since} />
        <UtcTimeInput id="log-until" name="until" label="Before" value={filters.until} />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <p>
        Download everything these filters match (newest first, at most{' '}
        {Math.min(log.bound, EXPORT_MAX_ROWS).toLocaleString('en')} requests):{' '}
        <a href={`${base}/requests/export?${withFilters({ format: 'csv' })}`} download>
          CSV
        </a>{' '}
        ·{' '}
        <a href={`${base}/requests/export?${withFilters({ format: 'jsonl' })}`} download>
          JSON Lines
        </a>
      </p>
      <DataTable
        label="Request log"
        caption="Refused and failed requests, newest first"
        columns={['Time', 'Key', 'Request', 'Answer', 'Request id', 'From']}
      >
        {log.entries.length === 0 && (
          <tr>
            <td colSpan={6}>Nothing refused or failed{filtered ? ' with these filters' : ''}.</td>
          </tr>
        )}
        {log.entries.map((e) => (
          <tr>
            <td class="when">
              <UtcTime at={e.at} toSecond />
            </td>
            <td>{keyCell(e)}</td>
            <td>
              <code class="path">
                {e.method} {breaksBefore('/', e.path)}
              </code>
            </td>
            <td>
              <AnswerCell entry={e} showReason={props.showReasons} />
            </td>
            <td>
              <code class="token">{e.request_id}</code>
            </td>
            <td>
              <FromCell entry={e} />
            </td>
          </tr>
        ))}
      </DataTable>
      {log.next_page_token && (
        <p>
          <a href={`${base}/requests?${withFilters({ page: log.next_page_token })}`} rel="next">
            Older requests
          </a>
        </p>
      )}
    </Layout>
  );
}
