import { InvalidArgumentError } from 'commander';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';

/**
 * Commander argument parsers. Throwing InvalidArgumentError makes commander report a
 * usage error (exit code 2) naming the option, before anything is sent to the service.
 */
function positiveInteger(value: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new InvalidArgumentError(`must be ${what}, got "${value}".`);
  }
  return n;
}

/** --timeout: milliseconds, a positive whole number. */
export const parseTimeout = (value: string): number =>
  positiveInteger(value, 'a positive whole number of milliseconds');

/** The largest --scale the records service accepts (about 4,000 records per unit). */
export const MAX_SEED_SCALE = 50;

/** --scale: a whole number from 1 to 50. */
export const parseScale = (value: string): number =>
  positiveInteger(value, `a whole number from 1 to ${MAX_SEED_SCALE}`, MAX_SEED_SCALE);

/** --events: a comma-separated selection of the four event types (docs/contract.md#event-types). */
export function parseEventTypes(value: string): EventTypeName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !EVENT_TYPES.isName(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `must be a comma-separated selection of ${EVENT_TYPES.names.join(', ')}` +
        (unknown.length ? `; unknown: ${unknown.join(', ')}` : ''),
    );
  }
  return names as EventTypeName[];
}

/** The largest page the listings (plans, deliveries) return. */
const MAX_PAGE = 200;

/** --limit: a whole number from 1 to 200. */
export const parseLimit = (value: string): number =>
  positiveInteger(value, `a whole number from 1 to ${MAX_PAGE}`, MAX_PAGE);

const DURATION_UNITS_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** --in: a duration such as 30m, 1h, 24h or 7d, in milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d{1,4})([mhd])$/.exec(value.trim());
  const ms = m ? Number(m[1]) * DURATION_UNITS_MS[m[2] as keyof typeof DURATION_UNITS_MS] : 0;
  if (ms <= 0) throw new InvalidArgumentError('must be a duration such as 30m, 1h, 24h or 7d.');
  return ms;
}

/**
 * --since: an RFC 3339 time as is (the service checks it), or a duration back from now
 * (6h, 3d) made into one, so a preview and the recovery after it name the same instant.
 */
export function parseSince(value: string, now = new Date()): string {
  if (!/^\d{1,4}[mhd]$/.test(value.trim())) return value.trim();
  return `${new Date(now.getTime() - parseDuration(value)).toISOString().slice(0, 19)}Z`;
}

/** --actor on changes that may be made by an operator for someone: named in the activity log. */
export const ACTOR_FLAGS = '--actor <email>';
export const ACTOR_HELP = 'who is acting, recorded in the activity log (default: operator)';
