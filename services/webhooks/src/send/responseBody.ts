import { firstCharacters } from '@brand/shared/text';

/** The most of a response body kept with an attempt (AttemptDetail.response_body). */
export const BODY_KEEP_BYTES = 4096;

/** The response headers kept with an attempt: the ones that explain an answer. */
const KEPT_HEADERS = ['content-type', 'content-length', 'retry-after'] as const;
/** A header value longer than this is cut (a hostile receiver could send kilobytes). */
const HEADER_VALUE_CHARS = 512;
const EXCERPT_CHARS = 200;

export interface Header {
  name: string;
  value: string;
}

/** What is kept of an answer: its important headers and at most the first 4 KB, as text. */
export interface ResponseDetail {
  headers: Header[];
  body: string;
  truncated: boolean;
  /** The body's size: declared by Content-Length, or counted when read to its end; -1 unknown. */
  bytes: number;
}

/**
 * Text PostgreSQL can store and people can read: invalid UTF-8 is replaced (U+FFFD, also
 * for a character cut at the 4 KB edge) and so is NUL, which a text column refuses.
 */
export function storableText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\0/g, '\uFFFD');
}

/** The headers worth keeping, in a fixed order, values bounded. */
export function keptHeaders(raw: Record<string, string | string[] | undefined>): Header[] {
  return KEPT_HEADERS.flatMap((name) => {
    const v = raw[name];
    const value = Array.isArray(v) ? v.join(', ') : v;
    return value === undefined
      ? []
      : [{ name, value: storableText(Buffer.from(value, 'latin1')).slice(0, HEADER_VALUE_CHARS) }];
  });
}

/**
 * How long the body of an answer is read once its status and headers are in. The status
 * decides the outcome; the body is kept only to show (its first 4 KB). Without a bound of its
 * own, a receiver answering 200 and then a byte a second held the attempt, and one of its
 * receiver's places, until the attempt's whole deadline (30 s by default) though it had answered.
 */
export const BODY_WAIT_MS = 1_000;

/**
 * Reads at most BODY_KEEP_BYTES (and one chunk beyond, to know there is more) for at most
 * `waitMs`, then destroys the body: a 50 MB answer is never read whole, a trickling one is not
 * waited for, and its connection is closed rather than drained. A body cut short, by the
 * receiver or by the wait, keeps what arrived.
 */
export async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  declaredLength: string | undefined,
  waitMs = BODY_WAIT_MS,
): Promise<{ kept: Buffer; truncated: boolean; bytes: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  let waited = false;
  const wait = setTimeout(() => {
    waited = true;
    body.destroy();
  }, waitMs);
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > BODY_KEEP_BYTES) break;
    }
    ended = size <= BODY_KEEP_BYTES && !waited;
  } catch {
    // a body cut short still leaves the status, which is what decides the outcome
  } finally {
    clearTimeout(wait);
    body.destroy();
  }
  const all = Buffer.concat(chunks);
  const declared =
    declaredLength !== undefined && /^\d+$/.test(declaredLength)
      ? Number(declaredLength)
      : undefined;
  return {
    kept: all.subarray(0, BODY_KEEP_BYTES),
    truncated:
      size > BODY_KEEP_BYTES || (declared !== undefined && declared > size) || (waited && !ended),
    bytes: declared ?? (ended ? size : -1),
  };
}

/** The short excerpt kept on the attempt itself (lists show it): whitespace folded, 200 chars. */
export function excerptOf(text: string): string | undefined {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded === '' ? undefined : firstCharacters(folded, EXCERPT_CHARS);
}
