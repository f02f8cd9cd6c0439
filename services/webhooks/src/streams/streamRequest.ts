import type { Pool } from '@brand/shared/db';
import type { ClaimedDelivery } from '../claim/claimRepo';
import type { Header } from '../send/responseBody';
import { headersAsShown, signature } from '../send/sign';
import type { StreamKind, StreamOptions } from '@brand/shared/webhooks';

/** One attempt of a stream, ready to send, and its headers as the attempt detail keeps them. */
export interface StreamRequest {
  headers: Record<string, string>;
  body: string;
  shown: Header[];
}

/**
 * What a claimed stream delivery carries: its run's entries, or its test entry. A run's entries
 * are read as they are now: one deleted since the run was opened (the request-entry retention)
 * is missing, and a run with none left is not sent (streamRequest).
 */
async function entriesOf(
  pool: Pool,
  d: ClaimedDelivery,
): Promise<{ entries: string[]; options: StreamOptions }> {
  const range = d.test
    ? undefined
    : (JSON.parse(d.object_json) as { from: number; through: number });
  const res = await pool.query<{ options: StreamOptions; entries: string[] | null }>({
    name: 'webhooks.audit-batch-entries',
    text: `select (select stream_options from receivers where id = $1) as options,
       (select array_agg('{"position":' || seq || ',' || substr(entry_json, 2) order by seq)
        from audit_entries where brand_id = $2 and seq between $3 and $4) as entries`,
    values: [d.receiver_id, d.brand_id, range?.from ?? 1, range?.through ?? 0],
  });
  const row = res.rows[0]!;
  return { options: row.options, entries: d.test ? [d.object_json] : (row.entries ?? []) };
}

const parse = (entry: string) => JSON.parse(entry) as Record<string, unknown>;

/** Splunk HEC's event envelope (one per entry, newline-separated: HEC's batch format). */
function splunkBody(entries: string[], options: StreamOptions): string {
  return entries
    .map((e) => {
      const event = parse(e);
      return JSON.stringify({
        time: Date.parse(String(event.created_at)) / 1000,
        host: 'brand-records',
        source: 'brand-records:audit',
        sourcetype: '_json',
        ...(options.splunk_index ? { index: options.splunk_index } : {}),
        event,
      });
    })
    .join('\n');
}

/** Datadog's logs intake body: an array of logs, the entry under `audit` (its `status` is HTTP's, not a log level). */
function datadogBody(entries: string[]): string {
  const logs = entries.map((e) => {
    const audit = parse(e);
    return {
      ddsource: 'brand-records',
      service: 'brand-records',
      hostname: 'brand-records',
      ddtags: `brand_id:${String(audit.brand_id)},kind:${String(audit.kind)},action:${String(audit.action)}`,
      date: Date.parse(String(audit.created_at)),
      message: `${String(audit.action)}: ${String(audit.summary)}`,
      audit,
    };
  });
  return JSON.stringify(logs);
}

/**
 * The request of one attempt of a stream delivery (the worker's stream path): the entries of
 * its run (read with their positions; the same bytes on every attempt but for a signature) in
 * the destination's format, with its credentials:
 * - https: JSON lines (`application/x-ndjson`), one entry a line, signed like a webhook
 *   (X-Service-Timestamp, X-Service-Signature over "<timestamp>.<body>", X-Service-Attempt;
 *   no X-Service-Event: an audit run is not one of the four events);
 * - splunk_hec: `Authorization: Splunk <token>`, HEC's event envelope per entry;
 * - datadog: `DD-API-KEY`, the intake's array of logs.
 * The credential never reaches the attempt's kept detail: a token is shown as dots, a
 * signature by its first characters (headersAsShown).
 *
 * `undefined` for a run none of whose entries is still in the trail (a review of 08e46f07):
 * sent, its empty body was answered 2xx and the run recorded as delivered, though nothing was
 * (streamOutcome.ts recordStreamEntriesGone records it instead).
 */
export async function streamRequest(
  pool: Pool,
  d: ClaimedDelivery,
  kind: StreamKind,
  secret: string,
  now: Date,
): Promise<StreamRequest | undefined> {
  const { entries, options } = await entriesOf(pool, d);
  if (entries.length === 0) return undefined;
  if (kind === 'https') {
    const body = `${entries.join('\n')}\n`;
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/x-ndjson',
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signature(secret, timestamp, body),
      'x-service-attempt': String(d.attempts + 1),
    };
    return { headers, body, shown: headersAsShown(headers) };
  }
  if (kind === 'splunk_hec') {
    const headers = { 'content-type': 'application/json', authorization: `Splunk ${secret}` };
    return {
      headers,
      body: splunkBody(entries, options),
      shown: [
        { name: 'content-type', value: headers['content-type'] },
        { name: 'authorization', value: 'Splunk ••••••••' },
      ],
    };
  }
  const headers = { 'content-type': 'application/json', 'dd-api-key': secret };
  return {
    headers,
    body: datadogBody(entries),
    shown: [
      { name: 'content-type', value: headers['content-type'] },
      { name: 'dd-api-key', value: '••••••••' },
    ],
  };
}
