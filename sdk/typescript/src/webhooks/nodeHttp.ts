import type { WebhookEventType } from './eventTypes.js';
import { respondTo, type WebhookHandlerOptions } from './handlerOutcome.js';
import { readNodeStream, type NodeStream } from './nodeStream.js';
import {
  checkDeclaredLength,
  isBytes,
  maxBodyBytesOf,
  rawBodyBytes,
  readBodyChunks,
} from './rawBody.js';
import { WebhookVerificationError } from './verificationError.js';
import {
  verifyAuditStreamDelivery,
  type VerifiedAuditStreamDelivery,
  type VerifyAuditStreamOptions,
} from './verifyAuditStream.js';
import {
  verifyWebhookDelivery,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
} from './verifyWebhook.js';

/**
 * A Node `IncomingMessage` (also an express request), typed by what is used, so this module
 * needs no Node types and loads anywhere.
 */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** True once something (a body parser) read the stream. */
  readableEnded?: boolean;
  /** Set by express body parsers: a Buffer from express.raw(), a string from express.text(). */
  body?: unknown;
  on?(event: string, listener: (...args: never[]) => void): unknown;
  removeListener?(event: string, listener: (...args: never[]) => void): unknown;
  resume?(): unknown;
}

/** A Node `ServerResponse` (also an express response), typed by what is used. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  headersSent?: boolean;
}

type NodeVerifyOptions<T extends WebhookEventType> = Omit<
  VerifyWebhookOptions<T>,
  'rawBody' | 'headers'
> & {
  maxBodyBytes?: number;
};

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/**
 * The raw body of a Node request: what express.raw() / express.text() left in `req.body`, else
 * the stream itself, read to the end (up to `maxBytes`). A body a JSON parser already consumed
 * is refused as body_not_raw: its bytes are gone, and re-serialising never matches the signature.
 */
export async function readNodeRawBody(
  req: NodeRequestLike,
  maxBodyBytes?: number,
): Promise<Uint8Array> {
  const maxBytes = maxBodyBytesOf(maxBodyBytes, 'readNodeRawBody');
  if (typeof req.body === 'string' || isBytes(req.body)) return rawBodyBytes(req.body);
  const unparsed = req.body === undefined || isEmptyObject(req.body);
  if (!unparsed || req.readableEnded === true) {
    throw new WebhookVerificationError(
      'body_not_raw',
      'the request body was parsed before verification; mount express.raw({ type: "application/json" }) ' +
        '(not express.json()) on the webhook route, express.raw({ type: "application/x-ndjson" }) on an ' +
        "audit stream's, or no body parser at all",
    );
  }
  const length = req.headers['content-length'];
  checkDeclaredLength(typeof length === 'string' ? length : undefined, maxBytes);
  return req.on && req.removeListener
    ? readNodeStream(req as NodeStream, maxBytes)
    : readBodyChunks(req, maxBytes);
}

/** Reads the raw body of a Node request (see readNodeRawBody) and verifies it. */
export async function verifyNodeWebhook<T extends WebhookEventType = WebhookEventType>(
  req: NodeRequestLike,
  options: NodeVerifyOptions<T>,
): Promise<VerifiedWebhook<T> & { rawBody: Uint8Array }> {
  const rawBody = await readNodeRawBody(req, options.maxBodyBytes);
  const verified = await verifyWebhookDelivery({ ...options, rawBody, headers: req.headers });
  return { ...verified, rawBody };
}

/** Reads the raw body of a Node request (see readNodeRawBody) and verifies it as an audit stream run. */
export async function verifyNodeAuditStream(
  req: NodeRequestLike,
  options: Omit<VerifyAuditStreamOptions, 'rawBody' | 'headers'> & { maxBodyBytes?: number },
): Promise<VerifiedAuditStreamDelivery & { rawBody: Uint8Array }> {
  const rawBody = await readNodeRawBody(req, options.maxBodyBytes);
  const verified = await verifyAuditStreamDelivery({ ...options, rawBody, headers: req.headers });
  return { ...verified, rawBody };
}

function send(res: NodeResponseLike, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/**
 * A request handler for Node's http/https servers and for express:
 *
 * ```ts
 * http.createServer(webhookNodeHandler({ secret, onEvent }));
 * app.post('/webhooks', express.raw({ type: 'application/json' }), webhookNodeHandler({ secret, onEvent }));
 * ```
 *
 * Verifies (reading the raw body itself when no parser ran), calls `onEvent`, and answers 200,
 * the refusal's status (`{"error": reason, "message"}`), or 500 when `onEvent` throws.
 */
export function webhookNodeHandler<T extends WebhookEventType = WebhookEventType>(
  options: WebhookHandlerOptions<T>,
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  // Checked once here: a bad limit would otherwise answer 500 to every delivery.
  maxBodyBytesOf(options.maxBodyBytes, 'webhookNodeHandler');
  return async (req, res) => {
    const outcome = await respondTo(options, (deduplicate) =>
      verifyNodeWebhook(req, { ...options, deduplicate, now: options.now?.() }),
    );
    send(res, outcome.status, outcome.body);
  };
}

/**
 * The same handler, named for express routes (after express.raw({ type: 'application/json' })).
 * @alias webhookNodeHandler
 */
export const webhookExpressHandler = webhookNodeHandler;
