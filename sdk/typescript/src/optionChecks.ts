/**
 * Run-time checks of options the types already describe, for JavaScript callers (and values
 * read from configuration): a clear TypeError naming the option instead of a raw TypeError
 * from deep inside, or a silent misbehaviour (a timer clamped to 1 ms, a poll loop flat out).
 */

/**
 * The longest delay a timer keeps: Node (and browsers) clamp anything above 2^31-1 ms to 1 ms
 * (TimeoutOverflowWarning), so a timeout of 3e9 ms would fire at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** A value for a message: numbers and strings as they are, anything else by its type. */
export function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : `a ${typeof value}`;
}

/** A finite number in [min, max], or a TypeError `${caller}: ${name} must be ...`. */
export function checkNumber(
  value: unknown,
  name: string,
  caller: string,
  range: { min: number; max: number; integer?: boolean; what: string },
): void {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= range.min &&
    value <= range.max &&
    (!range.integer || Number.isInteger(value));
  if (!ok) {
    throw new TypeError(`${caller}: ${name} must be ${range.what}, got ${shown(value)}.`);
  }
}

/** A timer delay in ms: 0 (or `min`) up to MAX_TIMER_MS. */
export function checkTimerMs(value: unknown, name: string, caller: string, min = 0): void {
  checkNumber(value, name, caller, {
    min,
    max: MAX_TIMER_MS,
    what: `a number of milliseconds from ${min} to ${MAX_TIMER_MS} (about 24.8 days, the longest timer)`,
  });
}

/** An AbortSignal (by what the client uses of it, so one from another realm passes too). */
export function checkSignal(signal: unknown, caller: string): void {
  if (signal === undefined) return;
  const s = (typeof signal === 'object' ? signal : null) as Partial<AbortSignal> | null;
  const ok =
    s !== null &&
    typeof s.aborted === 'boolean' &&
    typeof s.addEventListener === 'function' &&
    typeof s.throwIfAborted === 'function';
  if (!ok) {
    throw new TypeError(`${caller}: signal must be an AbortSignal, got ${shown(signal)}.`);
  }
}

/**
 * A time filter as the API takes it: a Date as RFC 3339, a string as it is. An invalid Date
 * (`new Date('x')`) would otherwise throw a RangeError from toISOString.
 */
export function timeParam(value: unknown, name: string, caller: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  if (value instanceof Date && Number.isFinite(value.getTime())) return value.toISOString();
  throw new TypeError(
    `${caller}: ${name} must be a valid Date or an RFC 3339 string, got ${
      value instanceof Date ? 'an invalid Date' : shown(value)
    }.`,
  );
}

/** A list of event types: an array (a single string would be sent letter by letter). */
export function checkTypes(types: unknown, caller: string): void {
  if (types !== undefined && !Array.isArray(types)) {
    throw new TypeError(
      `${caller}: types must be an array of event types (['payout.paid']), got ${shown(types)}.`,
    );
  }
}
