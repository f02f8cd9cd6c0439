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

/** --events: a comma-separated selection of the four event types (SPEC 6.1). */
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
