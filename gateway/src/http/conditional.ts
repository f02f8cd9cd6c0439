import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * Conditional GETs (issue 18), shared by every endpoint that answers 304: the lists, the
 * events feed. Each endpoint says what its answer's tag hashes; strongEtag makes the tag.
 */

/**
 * A strong entity tag for an answer whose bytes follow from `identity` (the brand, the query
 * and the version it was read at): 27 characters of its SHA-256, quoted.
 */
export function strongEtag(identity: string): string {
  return `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether an If-None-Match field value lists `etag`, by the weak comparison RFC 9110 13.1.2
 * prescribes for it (`W/"x"` matches `"x"`). `*` alone does not count: a list page always has
 * a representation, so RFC 9110 would answer it 304 for ever; it is answered as if absent
 * (200), as before conditional requests existed, and documented so.
 */
export function ifNoneMatchLists(fieldValue: string, etag: string): boolean {
  for (const element of fieldValue.split(',')) {
    const tag = element.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/**
 * 304 Not Modified: no body, the ETag, and whatever the steps before set (X-Request-Id,
 * Cache-Control, the RateLimit fields).
 */
export function sendNotModified(res: ServerResponse, etag: string): void {
  res.statusCode = 304;
  res.setHeader('ETag', etag);
  res.end();
}
