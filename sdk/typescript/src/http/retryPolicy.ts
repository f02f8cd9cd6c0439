/** How retries are spaced. The defaults suit the API's per-minute budgets. */
export interface RetryTuning {
  /** First backoff ceiling; each retry doubles it (full jitter: a random wait below it). */
  baseDelayMs: number;
  /** Ceiling of any backoff. */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` the client waits out by itself. A longer one is thrown to the
   * caller (RateLimitedError / ServiceUnavailableError with `retryAfterSeconds`) at once.
   */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY_TUNING: RetryTuning = {
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterSeconds: 60,
};

/** Statuses that say "not now" rather than "no": the brand's budget (429), a backend (503), a proxy (502, 504). */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Why an attempt failed, as far as retrying is concerned. */
export type AttemptFailure =
  { kind: 'connection' } | { kind: 'status'; status: number; retryAfterMs: number | undefined };

export interface RetryContext {
  /** Retries already made for this call (0 after the first attempt). */
  retriesDone: number;
  maxRetries: number;
  /**
   * True when sending the request twice cannot do anything twice: GETs, and the plan POST,
   * whose `request_id` makes the API replay instead of creating again.
   */
  idempotent: boolean;
  tuning: RetryTuning;
  /** A number in [0, 1): Math.random, or a fixed one in tests. */
  random: () => number;
}

/**
 * Full-jitter exponential backoff: a uniform wait in [0, min(maxDelayMs, baseDelayMs * 2^n))
 * before retry n (from 0), so clients that failed together do not retry together.
 */
export function backoffDelayMs(
  retryNumber: number,
  tuning: RetryTuning,
  random: () => number,
): number {
  const ceiling = Math.min(tuning.maxDelayMs, tuning.baseDelayMs * 2 ** retryNumber);
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` in milliseconds: delay-seconds (`"7"`) or an HTTP date, measured from `nowMs`
 * (a date in the past is 0). Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * How long to wait before retrying a failed attempt, or undefined to give up and throw.
 *
 * - Never more than `maxRetries` retries; never a retry of a request that is not idempotent.
 * - Connection failures and timeouts: backoff.
 * - 429, 502, 503, 504: backoff, but never sooner than `Retry-After`; a `Retry-After` above
 *   `maxRetryAfterSeconds` is not waited out.
 * - Any other status (400, 401, 403, 404, 409, 422, 500, ...): never retried; sending it again
 *   would get the same answer.
 */
export function retryDelayMs(failure: AttemptFailure, ctx: RetryContext): number | undefined {
  if (ctx.retriesDone >= ctx.maxRetries || !ctx.idempotent) return undefined;
  const backoff = backoffDelayMs(ctx.retriesDone, ctx.tuning, ctx.random);
  if (failure.kind === 'connection') return backoff;
  if (!RETRYABLE_STATUSES.has(failure.status)) return undefined;
  if (failure.retryAfterMs === undefined) return backoff;
  if (failure.retryAfterMs > ctx.tuning.maxRetryAfterSeconds * 1000) return undefined;
  return Math.max(backoff, failure.retryAfterMs);
}
