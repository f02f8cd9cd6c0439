/** Earliest and latest dates a plan may name: a typo such as 0226 or 20266 is refused. */
export const MIN_PLAN_DATE = '2000-01-01';
export const MAX_PLAN_DATE = '2100-12-31';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The problem with a `YYYY-MM-DD` string, or undefined when it is a real calendar date in
 * [MIN_PLAN_DATE, MAX_PLAN_DATE]. 2026-02-30 and 2026-13-01 are refused, 2028-02-29 passes.
 */
export function dateProblem(text: string): string | undefined {
  const m = DATE.exec(text);
  if (!m) return 'must be a date written YYYY-MM-DD.';
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return `is not a calendar date (${text}).`;
  }
  if (text < MIN_PLAN_DATE || text > MAX_PLAN_DATE) {
    return `must be between ${MIN_PLAN_DATE} and ${MAX_PLAN_DATE}.`;
  }
  return undefined;
}
