import { InvalidArgumentError } from 'commander';

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

/** The largest page the plans listing returns. */
export const MAX_PLAN_PAGE = 200;

/** --limit: a whole number from 1 to 200. */
export const parseLimit = (value: string): number =>
  positiveInteger(value, `a whole number from 1 to ${MAX_PLAN_PAGE}`, MAX_PLAN_PAGE);
