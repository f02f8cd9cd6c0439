import { normalizeSince } from '../resources';

/**
 * The shape PostgreSQL takes verbatim: upper-case `T` and `Z`, a year from 1000, no leap second,
 * an offset of at most 15:59 (PostgreSQL's bound; normalizeSince takes up to 23:59 because it
 * converts to UTC before PostgreSQL sees it).
 */
const VERBATIM =
  /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:0\d|1[0-5]):\d{2})$/;

/**
 * Whether `s` is an RFC 3339 time PostgreSQL takes as a timestamptz as it stands: the date and
 * time exist (JavaScript's Date.parse takes 30 February and 24:00 and moves on, PostgreSQL
 * refuses them, which was a 500 for bad input), checked by the one RFC 3339 reader, the list
 * filter's normalizeSince, in the shape VERBATIM allows.
 */
export function isRealInstant(s: string): boolean {
  return VERBATIM.test(s) && normalizeSince(s) !== undefined;
}
