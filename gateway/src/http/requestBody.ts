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

/**
 * Whether the request declares, in its Content-Length, a body of more than `maxBytes` sent as
 * it is (no Content-Encoding, or identity): refused at once with 413, unread (the prelude closes
 * the connection). body-parser refuses it too, but only once it has read the whole declared body
 * off the socket, so a client waiting for the answer got 408 request_timeout at the body
 * deadline, and one sending a gigabyte had it read first. A compressed body is judged by
 * body-parser as it inflates, as before.
 */
export function declaresTooLargeBody(req: IncomingMessage, maxBytes: number): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
  return Number(req.headers['content-length']) > maxBytes;
}

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
 *
 * With `maxBytes`, a body sent without Content-Length (chunked) and without Content-Encoding is
 * refused as entity.too.large the moment it passes the limit: body-parser refuses it too, but
 * only once it has read the rest off the socket, so a body that went on got 408 at the body
 * deadline instead. A body with a Content-Length is bounded by it (declaresTooLargeBody) and is
 * not counted: nothing is added to the common request.
 */
export function readBodyWith(
  parser: BodyParser,
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes?: number,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const counting = maxBytes !== undefined && sentUnbounded(req);
    let received = 0;
    const count = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes!) {
        req.off('data', count);
        reject(tooLargeError());
      }
    };
    if (counting) req.on('data', count);
    parser(req, res, (err) => {
      if (counting) req.off('data', count);
      if (err) reject(err);
      else resolve((req as { body?: unknown }).body);
    });
  });
}

/** A body of no declared length, as sent (no Content-Encoding, or identity). */
function sentUnbounded(req: IncomingMessage): boolean {
  const { headers } = req;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
  return headers['content-length'] === undefined;
}

/** body-parser's own refusal of a body over its limit, as both endpoints' error paths read it. */
function tooLargeError(): Error {
  return Object.assign(new Error('request entity too large'), {
    type: 'entity.too.large',
    status: 413,
    statusCode: 413,
    expose: true,
  });
}
