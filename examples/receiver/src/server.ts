import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type DedupeStore, MemoryDedupeStore, processOnce } from './dedupe';
import { type DeliveryEvent, type EventType } from './event';
import { baseUrl, closeServer, createBoundedServer, listen } from './listen';
import { DEFAULT_MAX_BODY_BYTES, readRawBody } from './rawBody';
import { type Verdict, verifyDelivery } from './verify';

/** What a test can make the receiver answer instead of the normal outcome. */
export type ScriptedResponse =
  number | 'hang' | { status: number; delayMs?: number; body?: string };

export type Outcome = 'processed' | 'duplicate' | 'in_progress' | 'refused' | 'scripted' | 'failed';

/** One request as the receiver saw it, recorded after it was answered (or left hanging). */
export interface ReceivedDelivery {
  /** Order of arrival, from 1. */
  n: number;
  /** The verified event; undefined when verification refused the request. */
  event: DeliveryEvent | undefined;
  attempt: number | undefined;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  verdict: Verdict;
  outcome: Outcome;
  /** The status answered, or 'hang' when the script never answered. */
  status: number | 'hang';
}

export interface ReceiverOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** PEM key and certificate; without them the server speaks plain HTTP (e.g. behind a TLS proxy). */
  tls?: { key: string | Buffer; cert: string | Buffer } | undefined;
  /** Signing secrets; several while rotating. */
  secrets: readonly string[];
  acceptedTypes: readonly EventType[];
  /**
   * Processes a verified, first-seen event. Keep it fast (enqueue slow work): the sender
   * waits at most 30 s. A throw answers 500, so the sender retries.
   */
  onEvent?: (
    event: DeliveryEvent,
    context: { attempt: number; secretIndex: number },
  ) => void | Promise<void>;
  /** For tests: answer request `n` (from 1) with this instead; undefined keeps normal behaviour. */
  respondWith?: (
    n: number,
    delivery: { attempt?: number; verdict: Verdict },
  ) => ScriptedResponse | undefined;
  /** Called after every request is answered, e.g. to log refusals. */
  onDelivery?: (delivery: ReceivedDelivery) => void;
  dedupe?: DedupeStore;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  /** The clock for timestamp checks (tests). */
  now?: () => Date;
  /** How many recent requests `received` keeps (10,000; the runnable receiver keeps none). */
  keepReceived?: number;
  /**
   * How many bytes of bodies `received` keeps at most, the newest requests' (64 MiB): the history
   * holds unsigned requests too, and 10,000 bodies of 1 MiB from anyone who can reach the
   * receiver were ~10 GiB (a review, 2026-11-30).
   */
  keepReceivedBytes?: number;
}

export interface RunningReceiver {
  url: string;
  port: number;
  /** The most recent requests, oldest first. */
  received: ReceivedDelivery[];
  /** Resolves once `predicate(received)` holds; rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Starts a receiver that verifies each delivery (docs/contract.md#receiver-verification), processes each event once
 * (duplicates are answered 200 without reprocessing), and answers 2xx, 400/401/422 for
 * refusals, 413 for oversized bodies, or 500 when `onEvent` fails. Bad input never throws.
 */
export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const dedupe = options.dedupe ?? new MemoryDedupeStore();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const keep = options.keepReceived ?? 10_000;
  const keepBytes = options.keepReceivedBytes ?? 64 * 1024 * 1024;
  const received: ReceivedDelivery[] = [];
  let receivedBytes = 0;
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  let count = 0;

  const record = (delivery: ReceivedDelivery): void => {
    received.push(delivery);
    receivedBytes += delivery.rawBody.length;
    while (received.length > keep || (receivedBytes > keepBytes && received.length > 0)) {
      receivedBytes -= received.shift()!.rawBody.length;
    }
    options.onDelivery?.(delivery);
    for (const wake of waiters) wake();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      answer(res, 405, { error: 'method_not_allowed' });
      return;
    }
    const n = ++count;
    const read = await readRawBody(req, maxBodyBytes);
    const rawBody = read.ok ? read.body : Buffer.alloc(0);
    const verdict: Verdict = read.ok
      ? await verifyDelivery({
          secret: options.secrets,
          headers: req.headers,
          rawBody,
          now: options.now?.(),
          toleranceSeconds: options.toleranceSeconds,
          acceptedTypes: options.acceptedTypes,
        })
      : {
          ok: false,
          status: read.reason === 'too_large' ? 413 : 400,
          reason: read.reason === 'too_large' ? 'body_too_large' : 'malformed_body',
          message: `body unreadable (${read.reason})`,
        };
    const base = {
      n,
      event: verdict.ok ? verdict.event : undefined,
      attempt: verdict.ok ? verdict.attempt : undefined,
      headers: req.headers,
      rawBody,
      verdict,
    };

    const script = options.respondWith?.(n, { attempt: base.attempt, verdict });
    if (script !== undefined) {
      const status =
        script === 'hang' ? 'hang' : typeof script === 'number' ? script : script.status;
      record({ ...base, outcome: 'scripted', status });
      if (status === 'hang') return; // left open until the sender gives up or close()
      const delayMs = typeof script === 'object' ? (script.delayMs ?? 0) : 0;
      const body = typeof script === 'object' && script.body !== undefined ? script.body : '';
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) res.writeHead(status).end(body);
      }, delayMs);
      timers.add(timer);
      return;
    }

    if (!read.ok) {
      const status = read.reason === 'too_large' ? 413 : 400;
      answer(res, status, { error: verdict.ok ? '' : verdict.reason });
      res.once('finish', () => req.destroy());
      record({ ...base, outcome: 'refused', status });
      return;
    }
    if (!verdict.ok) {
      answer(res, verdict.status, { error: verdict.reason, message: verdict.message });
      record({ ...base, outcome: 'refused', status: verdict.status });
      return;
    }
    try {
      const onEvent = options.onEvent ?? (() => undefined);
      const outcome = await processOnce(dedupe, verdict.event, (event) =>
        onEvent(event, { attempt: verdict.attempt, secretIndex: verdict.secretIndex }),
      );
      if (outcome === 'in_progress') {
        // being handled now and may still fail: the sender must try again
        answer(res, 409, { error: 'event_in_progress' });
        record({ ...base, outcome, status: 409 });
        return;
      }
      answer(res, 200, { received: true, duplicate: outcome === 'duplicate' });
      record({ ...base, outcome, status: 200 });
    } catch {
      answer(res, 500, { error: 'processing_failed' });
      record({ ...base, outcome: 'failed', status: 500 });
    }
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => answer(res, 500, { error: 'internal_error' }));
  };
  const server = createBoundedServer(listener, options.tls);

  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);

  return {
    url: baseUrl(options.tls ? 'https' : 'http', host, port),
    port,
    received,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!predicate(received)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `receiver: condition not met within ${timeoutMs} ms (${received.length} requests seen)`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await closeServer(server);
    },
  };
}
