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

/** The furthest back a --since/--until duration reaches: far past any history kept. */
const MAX_SINCE_DAYS = 3650;

/**
 * --since: an RFC 3339 time as is (the service checks it), or a duration back from now
 * (6h, 3d; at most 3650d) made into one, so a preview and the recovery after it name the
 * same instant. A duration past the bound is refused here, naming both forms, rather than
 * passed on for the service to call it a malformed time.
 */
export function parseSince(value: string, now = new Date()): string {
  const m = /^(\d+)([mhd])$/.exec(value.trim());
  if (!m) return value.trim();
  const ms = Number(m[1]) * DURATION_UNITS_MS[m[2] as keyof typeof DURATION_UNITS_MS];
  if (ms < 1 || ms > MAX_SINCE_DAYS * DURATION_UNITS_MS.d)
    throw new InvalidArgumentError(
      `must be a duration back from now from 1m to ${MAX_SINCE_DAYS}d (e.g. 90m, 6h, 3d; "${value.trim()}" is beyond ${MAX_SINCE_DAYS}d), or an RFC 3339 time with its offset (e.g. 2026-11-20T14:00:00Z).`,
    );
  return `${new Date(now.getTime() - ms).toISOString().slice(0, 19)}Z`;
}

/** How far in the past a --at may be and still mean "now": clocks of two machines differ. */
const CLOCK_SKEW_MS = 60_000;

const RFC3339_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * switch-secret --at: an RFC 3339 time with its offset, not more than a minute (clock skew) in
 * the past. A past time would switch at once, irreversibly, which is not what a time asks for;
 * `switch-secret` without --at/--in is how to switch now. The 7-day bound is the service's.
 */
export function parseSwitchAt(value: string, now = new Date()): string {
  const at = value.trim();
  const ms = RFC3339_WITH_OFFSET.test(at) ? Date.parse(at) : NaN;
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(
      'must be an RFC 3339 time with its offset, e.g. 2026-11-21T09:00:00Z.',
    );
  if (ms < now.getTime() - CLOCK_SKEW_MS)
    throw new InvalidArgumentError(
      'is in the past; give a time to come (at most 7 days ahead), --in a duration, or neither to switch now.',
    );
  return at;
}

/**
 * --actor on receiver and stream changes an operator may make for a brand owner: checked to be an
 * owner (ownerActor.ts: checkedActor), then named in the activity log.
 */
export const ACTOR_FLAGS = '--actor <email>';
export const ACTOR_HELP =
  'the brand owner acting, recorded in the activity log; anyone else is refused (default: operator)';
