import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What is wrong with a request's JSON body before it is read, or undefined: `missing` when the
 * request has none (no Content-Length or Transfer-Encoding: a JSON Content-Type alone once got
 * 415 "must be application/json"), `not_json` when its media type is not application/json (as
 * express's `req.is('application/json')` decided).
 */
export function jsonBodyProblem(
  req: IncomingMessage,
): 'missing' | 'not_json' | 'not_utf8' | undefined {
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || !/^\s*application\/json\s*(?:;|$)/i.test(type)) return 'not_json';
  // JSON is UTF-8 (RFC 8259); a body said to be in another charset is not read as if it were
  const charset = CHARSET.exec(type)?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return 'not_utf8';
  const length = headers['content-length'];
  const hasBody =
    headers['transfer-encoding'] !== undefined ||
    (length !== undefined && length !== '' && !Number.isNaN(Number(length)));
  return hasBody ? undefined : 'missing';
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** The refusal of a request whose JSON body is missing or of another media type. */
export const JSON_BODY_REFUSALS = {
  missing: 'The request has no body: send a JSON body (with its Content-Length).',
  not_json: 'Content-Type must be application/json.',
  not_utf8: 'The request body must be UTF-8 JSON (charset=utf-8, or no charset).',
} as const;

/** One of body-parser's readers (express.json, express.raw), as the lean paths call it. */
export type BodyParser = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: Error) => void,
) => void;

/**
 * Reads the body with a body-parser reader on plain node:http (no express request or
 * response object): its size limit, charsets, Content-Encoding and aborted uploads as the
 * express routes had them. Resolves with what it set as `req.body`; rejects with its error,
 * an http-error whose `type` says what was wrong (entity.too.large, entity.parse.failed, ...).
 */
export function readBodyWith(
  parser: BodyParser,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<unknown> {
  return new Promise((resolve, reject) =>
    parser(req, res, (err) => (err ? reject(err) : resolve((req as { body?: unknown }).body))),
  );
}

/** The refusal of a body whose bytes are not UTF-8 (the same words on REST and MCP). */
export const NOT_UTF8_MESSAGE = 'The request body is not valid UTF-8: JSON is sent as UTF-8.';

/**
 * Whether a body's bytes, as sent (after any Content-Encoding), are UTF-8. JSON is UTF-8 (RFC
 * 8259); a decoder that meets other bytes puts U+FFFD in their place, and the outside probe
 * (2026-11-30) saw a plan stored titled "caf\uFFFD" from a Latin-1 "caf\xE9". Such a body is
 * no JSON: 400 malformed_request on REST, -32700 on the assistant endpoint.
 */
export function isUtf8Body(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/**
 * body-parser's `verify` hook (it is handed the bytes before they are decoded): throws the
 * error errorHandler answers 400 malformed_request for a body that is not UTF-8.
 */
export function refuseNonUtf8(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (!isUtf8Body(bytes)) {
    throw Object.assign(new Error(NOT_UTF8_MESSAGE), { status: 400, type: 'entity.not.utf8' });
  }
}
