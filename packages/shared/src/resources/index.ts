import { RESOURCES, type ResourceName } from './resourceNames';

export { RESOURCES, type ResourceName } from './resourceNames';

export {
  MAX_RECORD_ID_LENGTH,
  RECORD_ID_MESSAGE,
  recordIdShape,
  type RecordIdShape,
} from './recordIds';

export function isResourceName(value: unknown): value is ResourceName {
  return typeof value === 'string' && (RESOURCES as readonly string[]).includes(value);
}

/** The assistant tool that lists a resource, e.g. list_campaigns. */
export function toolNameOf(resource: ResourceName): `list_${ResourceName}` {
  return `list_${resource}`;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Client-facing messages for bad list parameters; REST, MCP and the service say the same. */
export const LIST_PARAM_MESSAGES = {
  limit: `limit must be an integer from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
  since:
    'since must be an RFC 3339 timestamp with a time zone, e.g. 2026-01-31T23:59:59Z or 2026-01-31T23:59:59.123456+08:00 (in a query string, send + as %2B: a bare + reads as a space).',
  cursor:
    'cursor is not a next_cursor issued for this listing (it may be truncated or altered); start again without a cursor.',
  /** The events feed's cursor (GET /api/v1/events): the gateway's shape check and webhooks' MAC. */
  feedCursor:
    'cursor is not a next_cursor issued for this feed (it may be truncated or altered); start again without a cursor.',
  /** The audit log's (GET /api/v1/audit-log), refused alike. */
  auditCursor:
    'cursor is not a next_cursor issued for this audit log and kind (it may be truncated or altered); start again without a cursor.',
} as const;

export function isValidLimit(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT;
}

/** A REST query value: digits only, so "1.5", "-1", " 5" and "5abc" are refused, not coerced. */
export function parseLimitString(value: string): number | undefined {
  if (!/^[0-9]{1,4}$/.test(value)) return undefined;
  const n = Number(value);
  return isValidLimit(n) ? n : undefined;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The bounds PostgreSQL and our data live in; a since outside them is clamped (see below). */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Validates an RFC 3339 date-time (the whole grammar: `T` or `t`, `Z` or `z`, offsets up to
 * +-23:59, any number of fractional digits, second 60, years 0000 to 9999) and returns the
 * same instant in UTC as `YYYY-MM-DDTHH:MM:SS.ffffffZ`, or undefined when it is not one.
 * Normalising here matters: PostgreSQL refuses offsets beyond +-15:59, so a valid input
 * must never reach it unconverted. Fractions beyond microseconds are truncated, which is
 * exact for a strict lower bound over microsecond data (t > x.1234567 exactly when
 * t > x.123456). Second 60 (a leap second) is the next second. An instant before year 1
 * or after 9999 is clamped to that edge: no record lies beyond it, so the filter is the same.
 */
export function normalizeSince(value: string): string | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return undefined;
  const days = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > days) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  if (!z && (Number(oh) > 23 || Number(om) > 59)) return undefined;
  const digits = (frac ?? '').slice(0, 6).padEnd(6, '0');
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(digits.slice(0, 3)));
  const offsetMinutes = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  let ms = date.getTime() - offsetMinutes * 60_000;
  let micros = digits.slice(3);
  if (ms < EARLIEST) [ms, micros] = [EARLIEST, '000'];
  if (ms > LATEST_MS) [ms, micros] = [LATEST_MS, '999'];
  return new Date(ms).toISOString().replace(/Z$/, `${micros}Z`);
}

/** A cursor is base64url text with one dot; anything else is refused before any lookup. */
export function isCursorShaped(value: string): boolean {
  return value.length > 0 && value.length <= 512 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

/**
 * The later (tighter) of two exclusive lower bounds; either may be absent. Both are
 * normalizeSince() results (UTC, fixed width), so string order is instant order.
 */
export function laterSince(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a >= b ? a : b;
}
