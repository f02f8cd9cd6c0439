/** The outcome of asking for `cost` units of a budget. Returned, not thrown: callers branch on it. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Units per window. */
  limit: number;
  /** Units left in the current window after this call. */
  remaining: number;
  /** Seconds until the oldest counted unit leaves the window (0 when none is counted). */
  resetSeconds: number;
  /** When refused: whole seconds until enough units free up for this call (at least 1). */
  retryAfterSeconds: number;
  /** True when the decision came from the in-memory fallback because Redis was unreachable. */
  degraded: boolean;
  /** Identifies the units this call admitted, for refund(); absent when nothing was admitted. */
  reservation?: string;
  /**
   * The value of the `peekKey` the call named, read in the same round trip: null when the key
   * does not exist, undefined when it was not read (none named, or the in-memory fallback).
   */
  peeked?: string | null;
}

export const WINDOW_SECONDS = 60;

/**
 * A sliding-window limiter: at most `limit` units in any WINDOW_SECONDS-long window.
 * Unlike a fixed window it never lets twice the limit through across a window edge.
 * Refused calls consume nothing, so a client that backs off as told recovers on time.
 */
export interface RateLimiter {
  /**
   * Consumes `cost` units of `key`'s budget if they fit; cost 0 only inspects. `peekKey`, a
   * key of the same store (same prefix), is read along in the same round trip where the
   * store can (the brand's change version, issue 18): RateLimitDecision.peeked. A store that
   * admits from units it took ahead (the Redis limiter's leases) may answer with a value it
   * read along lately, unless `peekFresh` asks for it as it is now (a conditional request).
   */
  consume(
    key: string,
    limit: number,
    cost: number,
    peekKey?: string,
    peekFresh?: boolean,
  ): Promise<RateLimitDecision>;
  /**
   * Gives back the units an allowed decision admitted (a reservation that turned out not to
   * be needed). Best effort: a refund that cannot reach its store is dropped, which only
   * errs on the strict side.
   */
  refund(key: string, decision: RateLimitDecision): Promise<void>;
}

/** A limiter that can say whether its store is reachable right now. */
export interface ProbedRateLimiter extends RateLimiter {
  isReady(): boolean;
}
