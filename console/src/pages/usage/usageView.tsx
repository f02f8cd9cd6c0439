import type { GetUsageResponse } from '@brand/proto/access/v1/usage';
import type { ApiKey } from '@brand/proto/access/v1';
import { Field, KeyOptions } from '../../views/filterFields';
import { Layout, type Viewer } from '../../views/layout';
import { UsageChart } from './usageChart';
import { keyRows, OUTCOME_CLASSES, refusalsByCode, slicesOf } from './usageSeries';
import { DataTable } from '../../views/dataTable';

export const USAGE_WINDOWS = {
  '24h': 'last 24 hours, per minute',
  '7d': 'last 7 days, per hour',
} as const;
export type UsageWindow = keyof typeof USAGE_WINDOWS;

export interface UsagePageProps {
  viewer: Viewer;
  usage: GetUsageResponse;
  keys: ApiKey[];
  /** The key shown, or '' for the whole brand. */
  keyId: string;
  window: UsageWindow;
}

/**
 * Usage of the brand or of one key: requests per minute (24 hours) or per hour (7 days),
 * stacked by outcome, REST and assistant apart, against the brand's budget; then the keys'
 * shares (which key spends the budget) and the refusals by code, as tables.
 */
export function UsagePage(props: UsagePageProps) {
  const { usage, viewer } = props;
  const base = `/brands/${viewer.brandId}`;
  const shown = props.keys.find((k) => k.id === props.keyId);
  const sliceName = usage.bucket_seconds === 60 ? 'minute' : 'hour';
  const budget = usage.limit_per_minute * (sliceName === 'minute' ? 1 : 60);
  const rows = keyRows(usage.keys);
  const total = rows.reduce((n, r) => n + r.total, 0);
  const codes = refusalsByCode(usage.keys);
  const query = (w: string, key: string) =>
    `${base}/usage?window=${w}${key ? `&key=${encodeURIComponent(key)}` : ''}`;
  return (
    <Layout title="Usage" viewer={viewer} section="usage">
      <h1>Usage{shown ? ` of ${shown.name}` : ''}</h1>
      <p>
        This brand's budget is <strong>{usage.limit_per_minute} requests a minute</strong>, shared
        by all its keys, REST and assistant calls alike (each assistant message counts as one
        request). Counts reach this page within about 10 seconds; a gateway that crashes loses at
        most its last 5 seconds of counts.
      </p>
      <form method="get" action={`${base}/usage`} class="filters">
        <Field id="usage-key" label="Key">
          <select id="usage-key" name="key">
            <option value="" selected={props.keyId === ''}>
              All keys of the brand
            </option>
            <KeyOptions keys={props.keys} value={props.keyId} />
          </select>
        </Field>
        <input type="hidden" name="window" value={props.window} />
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      <nav aria-label="Chart window">
        <ul class="actions">
          {(Object.keys(USAGE_WINDOWS) as UsageWindow[]).map((w) => (
            <li>
              <a
                href={query(w, props.keyId)}
                aria-current={w === props.window ? 'true' : undefined}
              >
                {USAGE_WINDOWS[w]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p class="legend" aria-hidden="true">
        {OUTCOME_CLASSES.map((c) => (
          <>
            <span class={`swatch o${c.id}`} /> {c.label}
          </>
        ))}
        <span class="swatch budget" /> budget
      </p>
      {(['rest', 'assistant'] as const).map((surface) => (
        <figure class="chart">
          <UsageChart
            slices={slicesOf(usage, surface)}
            budget={budget}
            sliceName={sliceName}
            title={`${surface === 'rest' ? 'REST API' : 'Assistant (MCP)'} requests per ${sliceName}, ${USAGE_WINDOWS[props.window].split(',')[0]}`}
            idPrefix={`usage-${surface}`}
          />
          <figcaption>{surface === 'rest' ? 'REST API' : 'Assistant calls (MCP)'}</figcaption>
        </figure>
      ))}
      <h2>Which key spends the budget</h2>
      <DataTable
        label="Requests by key"
        caption={
          <>Requests per key over the {USAGE_WINDOWS[props.window].split(',')[0]}, biggest first</>
        }
        columns={['Key', 'REST', 'Assistant', ...OUTCOME_CLASSES.map((c) => c.label), 'Share']}
      >
        {rows.length === 0 && (
          <tr>
            <td colSpan={OUTCOME_CLASSES.length + 4}>No requests in this window.</td>
          </tr>
        )}
        {rows.map((r) => (
          <tr>
            <th scope="row">
              {r.keyId === '' ? (
                'No key of this brand'
              ) : (
                <a href={query(props.window, r.keyId)}>
                  {r.name || r.keyId} {r.prefix && <code class="token">{r.prefix}…</code>}
                </a>
              )}
            </th>
            <td>{r.rest}</td>
            <td>{r.assistant}</td>
            {OUTCOME_CLASSES.map((c) => (
              <td>{r.byClass[c.id]}</td>
            ))}
            <td>{total > 0 ? `${Math.round((r.total / total) * 100)}%` : '—'}</td>
          </tr>
        ))}
      </DataTable>
      <h2>Refusals by code</h2>
      {codes.length === 0 ? (
        <p>No 4xx refusals in this window.</p>
      ) : (
        <DataTable
          label="Answers by error code"
          caption="4xx answers by error code; see the request log for each one"
          columns={['Code', 'Requests']}
        >
          {codes.map(([code, n]) => (
            <tr>
              <th scope="row">
                <a
                  href={`${base}/requests?code=${code}${props.keyId ? `&key=${props.keyId}` : ''}`}
                >
                  <code>{code}</code>
                </a>
              </th>
              <td>{n}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Layout>
  );
}
