import { type IncomingMessage } from 'node:http';

export type RawBodyResult =
  { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/** Deliveries are small JSON documents; anything far beyond that is refused unread. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request body as raw bytes (SPEC 6.3 rule 1: the signature covers these bytes,
 * not any re-serialisation). Stops buffering past `maxBytes`; never rejects.
 */
export function readRawBody(
  req: IncomingMessage,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<RawBodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ ok: false, reason: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: RawBodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      if (!settled) chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}
