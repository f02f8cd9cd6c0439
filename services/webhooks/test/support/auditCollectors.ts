// Local servers that speak each audit stream destination's protocol (issue 63), for the streams'
// end-to-end test: an HTTPS JSON-lines collector that verifies the signature as a webhook
// receiver does, a Splunk HTTP Event Collector that checks `Authorization: Splunk <token>` and
// the event envelope, and a Datadog logs intake that checks `DD-API-KEY` and the logs array.
// Each records what it accepted, with when, and can be taken down (503) and up again.
import {
  verifyAuditStreamDelivery,
  WebhookVerificationError,
} from '@brand-records/client/webhooks';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One audit entry as a destination received it, with when it arrived. */
export interface Received {
  entry: { position: number; id: string; brand_id: string; action: string; test: boolean } & Record<
    string,
    unknown
  >;
  at: number;
}

export interface Collector {
  url: string;
  /** Every entry accepted, in arrival order (a run sent again shows twice). */
  received: Received[];
  /** Every request to the collector's path while up, its headers and raw body as received. */
  requests: { headers: IncomingHttpHeaders; body: Buffer }[];
  /** Requests refused for their credentials or shape, with why. */
  refused: string[];
  /** While down, every request is answered 503 (the destination's outage). */
  down: boolean;
  close(): Promise<void>;
}

type Verdict = { entries: Received['entry'][] } | { status: number; why: string };
/** `raw` is the body's bytes exactly as received (what a signature covers), `body` their text. */
type Accept = (req: IncomingMessage, body: string, raw: Buffer) => Verdict | Promise<Verdict>;

async function serve(
  tls: { key: Buffer; cert: Buffer },
  path: string,
  accept: Accept,
  ok: { status: number; body: string },
): Promise<Collector> {
  const collector: Collector = {
    url: '',
    received: [],
    requests: [],
    refused: [],
    down: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const answer = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    if (collector.down) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
      return;
    }
    if (req.method !== 'POST' || req.url !== path) {
      collector.refused.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    collector.requests.push({ headers: req.headers, body: raw });
    const verdict = await accept(req, raw.toString('utf8'), raw);
    if ('why' in verdict) {
      collector.refused.push(verdict.why);
      res.writeHead(verdict.status, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const at = Date.now();
    for (const entry of verdict.entries) collector.received.push({ entry, at });
    res.writeHead(ok.status, { 'content-type': 'application/json' }).end(ok.body);
  };
  const server: Server = createServer(tls, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // A collector that throws (a body it cannot read) refuses, so the test sees why.
      answer(req, res, Buffer.concat(chunks)).catch((error: unknown) => {
        collector.refused.push(`threw: ${String(error)}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector.url = `https://localhost:${(server.address() as AddressInfo).port}${path}`;
  return collector;
}

/**
 * HTTPS JSON lines, verified as docs/console.md#audit-streams tells a stream's receiver: with the
 * client package's verifyAuditStreamDelivery (the signing headers and no X-Service-Event, the
 * timestamp within 5 minutes, HMAC over "<timestamp>.<raw body>" compared in constant time, each
 * line one entry). The content type is checked here: the verifier leaves it alone (not signed).
 */
export function jsonLinesCollector(
  tls: { key: Buffer; cert: Buffer },
  secret: () => string,
): Promise<Collector> {
  return serve(
    tls,
    '/audit',
    async (req, _body, raw) => {
      if (req.headers['content-type'] !== 'application/x-ndjson')
        return { status: 400, why: `content-type ${String(req.headers['content-type'])}` };
      try {
        const run = await verifyAuditStreamDelivery({
          rawBody: raw,
          headers: req.headers,
          secret: secret(),
        });
        return { entries: run.entries };
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        return { status: error.status, why: `${error.reason}: ${error.message}` };
      }
    },
    { status: 200, body: '{}' },
  );
}

/**
 * Splunk's HTTP Event Collector (/services/collector/event): `Authorization: Splunk <token>`,
 * a body of event objects one after another, each with `time`, `sourcetype` and its `event`;
 * HEC's own answers ({"text":"Success","code":0}, "Invalid token" code 4, "Invalid data
 * format" code 6).
 */
export function splunkHecCollector(
  tls: { key: Buffer; cert: Buffer },
  token: string,
): Promise<Collector> {
  return serve(
    tls,
    '/services/collector/event',
    (req, body) => {
      if (req.headers.authorization !== `Splunk ${token}`)
        return { status: 403, why: `authorization ${String(req.headers.authorization)}` };
      const entries: Received['entry'][] = [];
      for (const line of body.split('\n')) {
        const e = JSON.parse(line) as {
          time?: unknown;
          sourcetype?: unknown;
          host?: unknown;
          event?: Received['entry'];
        };
        if (typeof e.time !== 'number' || e.sourcetype !== '_json' || typeof e.event !== 'object')
          return { status: 400, why: `not a HEC event: ${line.slice(0, 80)}` };
        entries.push(e.event);
      }
      return { entries };
    },
    { status: 200, body: '{"text":"Success","code":0}' },
  );
}

/**
 * Datadog's logs intake (/api/v2/logs): `DD-API-KEY`, a JSON array of logs, each with its
 * `ddsource`, `service`, `message` and the entry under `audit`; 202 as Datadog answers.
 */
export function datadogCollector(
  tls: { key: Buffer; cert: Buffer },
  apiKey: string,
): Promise<Collector> {
  return serve(
    tls,
    '/api/v2/logs',
    (req, body) => {
      if (req.headers['dd-api-key'] !== apiKey)
        return { status: 403, why: `dd-api-key ${String(req.headers['dd-api-key'])}` };
      const logs = JSON.parse(body) as Array<{
        ddsource?: unknown;
        service?: unknown;
        message?: unknown;
        ddtags?: unknown;
        audit?: Received['entry'];
      }>;
      if (!Array.isArray(logs) || logs.length === 0 || logs.length > 1000)
        return { status: 400, why: 'not an array of 1 to 1,000 logs' };
      for (const l of logs) {
        if (l.ddsource !== 'brand-records' || typeof l.message !== 'string' || !l.audit)
          return { status: 400, why: 'not a log of ours' };
        if (typeof l.ddtags !== 'string' || !l.ddtags.includes(`brand_id:${l.audit.brand_id}`))
          return { status: 400, why: 'no brand tag' };
      }
      return { entries: logs.map((l) => l.audit!) };
    },
    { status: 202, body: '{}' },
  );
}

/**
 * Whether `received` holds each position of `first..last` and, in arrival order, never an
 * entry before one of a smaller position that had not arrived yet (a run sent again after a
 * lost answer may repeat positions already seen: at least once, in order). Returns the
 * positions in the order they first arrived.
 */
export function firstArrivals(received: readonly Received[]): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const r of received) {
    if (r.entry.test || seen.has(r.entry.position)) continue;
    seen.add(r.entry.position);
    order.push(r.entry.position);
  }
  return order;
}
