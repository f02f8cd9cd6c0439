import { z } from 'zod';
import { isCursorShaped, normalizeSince, parseLimitString } from '@brand/shared/resources';
import { cursor, limit, parseListParams, since, type ListParams } from '../../records/listParams';
import { parseQueryString } from '../../http/queryString';

/** The route pattern, and the request metric's label of every answer of this endpoint. */
export const LIST_ROUTE = '/api/v1/:resource';

/**
 * A query-string limit through the shared rule (digits only, so "1.5", "-1", " 5" and "1e2"
 * are refused, never coerced); anything it refuses stays a string and fails `limit` below
 * with the one message.
 */
const limitFromQuery = (v: unknown): unknown =>
  typeof v === 'string' ? (parseLimitString(v) ?? v) : v;

/** GET /api/v1/{resource} query parameters. Unknown parameters are refused, to catch typos. */
export const ListQuery = z.strictObject({
  limit: z.preprocess(limitFromQuery, limit).optional(),
  cursor: cursor.optional(),
  since: since.optional(),
});

/** Characters that make a raw value differ from its decoded form (percent escapes, '+'). */
const ENCODED = /[%+]/;

/**
 * The valid queries as they arrive, read without a zod pass (a measurable share of the
 * gateway's CPU per page, BENCHMARKS.md): none, or `limit`, `cursor` and `since` each at most
 * once, with values that need no decoding and pass their rules, in any order. Undefined for
 * anything else, valid or not: ListQuery judges it, with its messages. A walk's every page
 * (`limit=50&cursor=...`) is read here.
 */
export function validListParams(rawQuery: string): ListParams | undefined {
  const params: { limit?: number; cursor?: string; since?: string } = {};
  if (rawQuery === '') return params;
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) return undefined;
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (ENCODED.test(value)) return undefined;
    if (name === 'limit' && params.limit === undefined) {
      const n = parseLimitString(value);
      if (n === undefined) return undefined;
      params.limit = n;
    } else if (name === 'cursor' && params.cursor === undefined && isCursorShaped(value)) {
      params.cursor = value;
    } else if (name === 'since' && params.since === undefined && normalizeSince(value)) {
      params.since = value;
    } else {
      return undefined;
    }
  }
  return params;
}

/**
 * The list parameters of a request: the valid forms read directly, else ListQuery over the
 * query as express's simple parser read it (invalid_parameter or invalid_cursor, with one
 * detail per offending parameter).
 */
export function readListQuery(rawQuery: string): ListParams {
  return validListParams(rawQuery) ?? parseListParams(ListQuery, parseQueryString(rawQuery));
}
