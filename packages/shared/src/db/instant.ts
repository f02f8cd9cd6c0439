const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether `s` is an RFC 3339 time PostgreSQL takes as a timestamptz: the date and time exist
 * (JavaScript's Date.parse takes 30 February and 24:00 and moves on, PostgreSQL refuses them,
 * which was a 500 for bad input), in a year from 1000 to 9999, with an offset of at most 15:59
 * (PostgreSQL's bound).
 */
export function isRealInstant(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map(Number);
  if (year < 1000 || Number(m[7] ?? 0) > 15 || Number(m[8] ?? 0) > 59) return false;
  const t = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    t.getUTCFullYear() === year &&
    t.getUTCMonth() === month - 1 &&
    t.getUTCDate() === day &&
    t.getUTCHours() === hour &&
    t.getUTCMinutes() === minute &&
    t.getUTCSeconds() === second
  );
}
