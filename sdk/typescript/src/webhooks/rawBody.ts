import { shown } from '../optionChecks.js';
import { WebhookVerificationError } from './verificationError.js';

/** The body exactly as received: a string, or bytes (a Node Buffer is a Uint8Array). */
export type WebhookRawBody = string | Uint8Array | ArrayBuffer;

/** Deliveries are small JSON documents; the helpers refuse bodies beyond this unread. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const NOT_RAW =
  'rawBody must be the request body exactly as received (a string or bytes), before any JSON ' +
  'parsing: the signature covers those bytes, and a parsed-then-restringified body never matches. ' +
  'With express use express.raw({ type: "application/json" }) on this route; with fetch-style ' +
  'requests use await request.text() (or verifyWebhookRequest).';

/**
 * True for bytes: any typed array or DataView (a Buffer included) or an ArrayBuffer. Checked by
 * internal slot rather than instanceof, so bytes made in another realm (a vm context, a test
 * environment, an iframe) count too.
 */
export function isBytes(value: unknown): value is ArrayBufferView | ArrayBuffer {
  return (
    ArrayBuffer.isView(value) || Object.prototype.toString.call(value) === '[object ArrayBuffer]'
  );
}

/** The bytes the signature covers. Throws WebhookVerificationError('body_not_raw') for anything else. */
export function rawBodyBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return new TextEncoder().encode(rawBody);
  if (ArrayBuffer.isView(rawBody))
    return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (isBytes(rawBody)) return new Uint8Array(rawBody as ArrayBuffer);
  const what = rawBody === undefined || rawBody === null ? 'missing' : `a ${typeof rawBody}`;
  throw new WebhookVerificationError('body_not_raw', `rawBody is ${what}. ${NOT_RAW}`);
}

/**
 * The body limit a caller gave (`maxBodyBytes`), or the default. A negative or NaN limit
 * would refuse every body, or none: a TypeError naming the option instead.
 */
export function maxBodyBytesOf(value: unknown, caller: string): number {
  if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(
      `${caller}: maxBodyBytes must be a number of bytes, 0 or more, got ${shown(value)}.`,
    );
  }
  return value;
}

/** Joins chunks into one array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function tooLarge(maxBytes: number): WebhookVerificationError {
  return new WebhookVerificationError('body_too_large', `body is larger than ${maxBytes} bytes`);
}

/**
 * Reads a body stream to its end as raw bytes, refusing it (body_too_large) as soon as it
 * passes `maxBytes`. Takes anything async-iterable over bytes or strings: a Node
 * `IncomingMessage`, or a web `ReadableStream` in runtimes that iterate streams.
 */
export async function readBodyChunks(
  body: AsyncIterable<unknown>,
  maxBytes: number = DEFAULT_MAX_BODY_BYTES,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = rawBodyBytes(chunk);
    size += bytes.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(bytes);
  }
  return concatBytes(chunks);
}

/** Reads a web ReadableStream (a Request body) with the same limit, in every runtime. */
export async function readWebStream(
  stream: {
    getReader(): { read(): Promise<{ done: boolean; value?: unknown }>; cancel(): Promise<void> };
  },
  maxBytes: number = DEFAULT_MAX_BODY_BYTES,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(chunks);
    const bytes = rawBodyBytes(value);
    size += bytes.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(bytes);
  }
}

/** Refuses a declared Content-Length beyond the limit before reading anything. */
export function checkDeclaredLength(
  contentLength: string | null | undefined,
  maxBytes: number,
): void {
  const declared = Number(contentLength);
  if (contentLength && Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
}
