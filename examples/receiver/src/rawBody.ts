import {
  DEFAULT_MAX_BODY_BYTES,
  readNodeRawBody,
  WebhookVerificationError,
} from '@brand-records/client/webhooks';
import type { IncomingMessage } from 'node:http';

export { DEFAULT_MAX_BODY_BYTES };

export type RawBodyResult =
  { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Reads the request body as raw bytes with the client package (docs/contract.md#receiver-verification rule 1: the signature
 * covers these bytes, not any re-serialisation), refusing it past `maxBytes`. Never rejects.
 */
export async function readRawBody(
  req: IncomingMessage,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<RawBodyResult> {
  try {
    const bytes = await readNodeRawBody(req, maxBytes);
    return { ok: true, body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  } catch (error) {
    const tooLarge = error instanceof WebhookVerificationError && error.reason === 'body_too_large';
    return { ok: false, reason: tooLarge ? 'too_large' : 'aborted' };
  }
}
