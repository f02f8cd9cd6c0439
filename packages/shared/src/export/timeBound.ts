import { AppError } from '../errors/appError';

// A day, a UTC minute or second, or full RFC 3339 with an offset: what people type and what
// machines send. No offset means UTC (the console shows times in UTC).
const TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field}: ${message}.`, {
    details: [{ field, message }],
  });
}

/** One bound of a time range as a Date; validation_failed on `field` when it is not a time. */
export function parseTimeBound(value: string, field: string): Date {
  const m = TIME.exec(value.trim());
  const bad = () => invalid(field, 'must be a time such as 2026-11-25 or 2026-11-25T07:30:00Z');
  if (!m) throw bad();
  const [, day, hm, rest, zone] = m;
  const text = `${day}T${hm ?? '00:00'}${rest ?? ':00'}${zone ?? 'Z'}`.toUpperCase();
  const at = new Date(text);
  // Date accepts 2026-02-31 by rolling over; a day that does not exist is refused.
  if (Number.isNaN(at.getTime()) || (zone === undefined && !text.startsWith(isoDay(at)))) {
    throw bad();
  }
  return at;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** A time range's since (inclusive) and until (exclusive), either open; until must be after since. */
export function parseTimeRange(raw: { since: string; until: string }): {
  since: Date | undefined;
  until: Date | undefined;
} {
  const since = raw.since === '' ? undefined : parseTimeBound(raw.since, 'since');
  const until = raw.until === '' ? undefined : parseTimeBound(raw.until, 'until');
  if (since && until && until.getTime() <= since.getTime()) {
    throw invalid('until', 'must be after since');
  }
  return { since, until };
}
