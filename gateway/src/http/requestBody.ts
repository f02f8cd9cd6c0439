import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A JSON body, as express's `req.is('application/json')` decided: the request has a body
 * (Content-Length or Transfer-Encoding) and its media type is application/json.
 */
export function isJsonBody(req: IncomingMessage): boolean {
  const { headers } = req;
  const hasBody =
    headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));
  const type = headers['content-type'];
  return hasBody && type !== undefined && /^\s*application\/json\s*(?:;|$)/i.test(type);
}

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
