/** The six readable resources, in the contract's order (SPEC 2.1). */
export const RESOURCES = [
  'campaigns',
  'submissions',
  'payouts',
  'deposits',
  'conversions',
  'links',
] as const;

export type ResourceName = (typeof RESOURCES)[number];

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
    'since must be an RFC 3339 timestamp with a time zone, e.g. 2026-01-31T23:59:59Z or 2026-01-31T23:59:59.123456+08:00.',
  cursor:
    'cursor is not a next_cursor issued for this listing (it may be truncated or altered); start again without a cursor.',
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
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Validates an RFC 3339 date-time (a real calendar date, a time zone required) and
 * returns it normalised for PostgreSQL, or undefined when it is not one. Fractions beyond
 * microseconds are truncated, which is exact for a strict lower bound over
 * microsecond-precision data: t < x.1234567 holds exactly when t <= x.123456.
 */
export function normalizeSince(value: string): string | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (!z && (Number(oh) > 23 || Number(om) > 59)) return undefined;
  const fraction = frac ? `.${frac.slice(0, 6)}` : '';
  const zone = z ? 'Z' : `${sign}${oh}:${om}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${zone}`;
}

/** A cursor is base64url text with one dot; anything else is refused before any lookup. */
export function isCursorShaped(value: string): boolean {
  return value.length > 0 && value.length <= 512 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

/**
 * Microseconds since the epoch of a normalizeSince() result, for comparing bounds given
 * in different time zones.
 */
export function sinceEpochMicros(normalized: string): bigint {
  const m = /^(.+T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/.exec(normalized);
  if (!m) throw new Error(`not a normalized timestamp: ${normalized}`);
  const wholeSeconds = Date.parse(`${m[1]}${m[3]}`);
  return BigInt(wholeSeconds) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** The later (tighter) of two exclusive lower bounds; either may be absent. */
export function laterSince(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return sinceEpochMicros(a) >= sinceEpochMicros(b) ? a : b;
}
