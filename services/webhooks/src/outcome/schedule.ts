// The schedule's delays live in shared: the console states them beside Retry now.
import { ATTEMPTS_PER_ROUND, RETRY_DELAYS_MS } from '@brand/shared/webhooks';

/** After a 429, a 503 or a timeout the receiver is overloaded: wait at least this long. */
const OVERLOAD_MIN_DELAY_MS = 60_000;

export interface RetryInput {
  /** Attempts made in this round so far, including the one that just failed (1..). */
  attemptInRound: number;
  /** The failed attempt's HTTP status; undefined when no response came. */
  status: number | undefined;
  timedOut: boolean;
  /** The Retry-After header, if any. */
  retryAfter: string | undefined;
  /** Multiplies every delay (RETRY_TIME_SCALE). */
  scale: number;
  now: Date;
  /** 0..1; the jitter draw (Math.random by default). */
  random?: number;
}

/** Seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * When the next attempt is due, or undefined when the round is used up (the delivery is
 * then failed). The scheduled delay is jittered by +-10%; 429, 503 and timeouts wait at
 * least 60 s; Retry-After is honoured, capped at twice the scheduled delay.
 */
export function nextAttemptAt(input: RetryInput): Date | undefined {
  if (input.attemptInRound >= ATTEMPTS_PER_ROUND) return undefined;
  const scheduled = RETRY_DELAYS_MS[input.attemptInRound - 1]!;
  const jitter = 0.9 + 0.2 * (input.random ?? Math.random());
  let delay = scheduled * jitter;
  const overloaded = input.status === 429 || input.status === 503 || input.timedOut;
  if (overloaded) delay = Math.max(delay, OVERLOAD_MIN_DELAY_MS);
  const asked = parseRetryAfterMs(input.retryAfter, input.now);
  if (asked !== undefined) delay = Math.max(delay, Math.min(asked, 2 * scheduled));
  return new Date(input.now.getTime() + delay * input.scale);
}
