import type { ServerResponse } from 'node:http';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON body in parts, written in order and never joined: a page's records pass through as
 * the bytes the records service sent (node writes the parts in one writev, the socket being
 * corked for the tick). sendJson empties the array once written: a promise that resolved with
 * it keeps no page bytes (takeData in records/listPage.ts says why that matters).
 */
export type JsonParts = (string | Buffer)[];

/**
 * Every JSON answer of the gateway, on express routes and lean paths alike: the status, then
 * exactly the headers express's res.json() writes (Content-Type with its charset, an exact
 * Content-Length), then the body. A HEAD request gets the same headers and no body (node drops
 * the writes).
 */
export function sendJson(res: ServerResponse, status: number, body: string | JsonParts): void {
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  if (typeof body === 'string') {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    return;
  }
  let length = 0;
  for (const part of body)
    length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  res.setHeader('Content-Length', length);
  const last = body.length - 1;
  for (let i = 0; i < last; i++) res.write(body[i]);
  res.end(body[last]);
  body.length = 0;
}
