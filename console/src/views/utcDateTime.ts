/** What an `<input type="datetime-local">` posts: a wall-clock time with no zone. */
const DATE_TIME_LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * Reads a datetime-local value as UTC (the console's pages label every time UTC, so the
 * time a person types means the same whatever their browser's zone). Undefined when it is
 * not such a value or names no real time (2026-02-30T10:00).
 */
export function parseUtcDateTimeLocal(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE_TIME_LOCAL.exec(value.trim());
  if (!m) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m
    .slice(1)
    .map((v) => Number(v ?? 0));
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const roundTrips =
    d.getUTCFullYear() === year &&
    d.getUTCMonth() === month - 1 &&
    d.getUTCDate() === day &&
    d.getUTCHours() === hour &&
    d.getUTCMinutes() === minute;
  return roundTrips ? d : undefined;
}

/** A time as a datetime-local value in UTC, to the minute ("2026-11-20T14:00"). */
export function toUtcDateTimeLocal(d: Date): string {
  return d.toISOString().slice(0, 16);
}
