import { parse, type ParsedUrlQuery } from 'node:querystring';

/**
 * A query string's parameters as node:querystring reads them (repeats as arrays, `+` and
 * percent escapes decoded), but all of them: its default stops after 1,000 `&`-separated
 * pieces, empty ones included, so `?&&…&limit=0` with 1,000 `&` listed a default page and a
 * `cursor=garbage` there gave the first page, where either is a 400. The request line's
 * bound (16 KB, the headers limit) bounds the count instead. Only the parameter readers'
 * slow paths call this; a valid list query is read without it (validListParams).
 */
export function parseQueryString(rawQuery: string): ParsedUrlQuery {
  return parse(rawQuery, '&', '=', { maxKeys: 0 });
}
