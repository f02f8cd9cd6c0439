import { z } from 'zod';
import { AppError, quoteInput } from '@brand/shared/errors';
import {
  isResourceName,
  parseLimitString,
  RESOURCES,
  type ResourceName,
} from '@brand/shared/resources';
import { cursor, limit, parseListParams, since, type ListParams } from '../../records/listParams';

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

/**
 * The common queries as they arrive, unparsed: none, an empty one, or exactly
 * `limit=<valid>`. Read without a zod pass, which was a measurable share of the gateway's
 * CPU per page (BENCHMARKS.md). Undefined for anything else, valid or not: ListQuery judges it.
 */
export function commonListParams(rawQuery: string): ListParams | undefined {
  if (rawQuery === '') return {};
  if (!rawQuery.startsWith('limit=')) return undefined;
  const n = parseLimitString(rawQuery.slice('limit='.length));
  return n === undefined ? undefined : { limit: n };
}

/**
 * The list parameters of a request: the common forms, else ListQuery over the parsed query
 * (invalid_parameter or invalid_cursor, with one detail per offending parameter).
 */
export function readListQuery(rawQuery: string, parsed: Record<string, unknown>): ListParams {
  return commonListParams(rawQuery) ?? parseListParams(ListQuery, parsed);
}

/** The resource a path names, or 404 unknown_resource. */
export function resourceNamed(name: string): ResourceName {
  if (isResourceName(name)) return name;
  throw new AppError(
    'unknown_resource',
    `Unknown resource ${quoteInput(name)}; the resources are ${RESOURCES.join(', ')}.`,
  );
}

/** The query string of a request target ('' when it has none). */
export function rawQueryOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}
