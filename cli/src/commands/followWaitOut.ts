import { status, type ServiceError } from '@grpc/grpc-js';
import { DEFAULT_RETRY_TUNING, followBackoffMs } from '@brand-records/client';
import { isAppError, RETRY_AFTER_METADATA } from '@brand/shared/errors';

/**
 * gRPC answers that say "not now" rather than "no", as 429/503 and a proxy's 502/504 do on
 * the REST path: the webhooks service restarting in a rolling deploy (UNAVAILABLE), a call
 * that outlived its deadline, a rate limit. Everything else (INVALID_ARGUMENT, NOT_FOUND,
 * PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION such as cursor_expired, INTERNAL)
 * would get the same answer again and ends the follow. ABORTED is not here: no service of this
 * system answers it (the error table maps no code to it), so it means nothing retryable.
 */
const TEMPORARY = new Map<number, string>([
  [status.UNAVAILABLE, 'UNAVAILABLE'],
  [status.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED'],
  [status.RESOURCE_EXHAUSTED, 'RESOURCE_EXHAUSTED'],
]);

/**
 * How long failures in a row may last before the follow gives up with the last one. The REST
 * path's follower has no such bound (it backs off up to a minute, forever); an operator's follow
 * over the admin token that cannot reach the service for five minutes is better told so.
 */
export const OUTAGE_LIMIT_MS = 5 * 60_000;

/** The longest Retry-After waited out, as the REST path's client (a longer one ends the follow). */
const MAX_RETRY_AFTER_MS = DEFAULT_RETRY_TUNING.maxRetryAfterSeconds * 1000;

/** Where a follow's wait lines go and what they name. */
export interface WaitNotices {
  /** One line per wait, on stderr. */
  notice: (text: string) => void;
  /** Who answered, for the lines: "the webhooks service at 127.0.0.1:50053". */
  peer: string;
  /** The position the read goes on from, for the lines. */
  position: () => number;
  /** The clock (tests pass their own). */
  now?: () => number;
}

export interface WaitOutOptions extends WaitNotices {
  /** The poll interval: the first back-off, doubling with each failure in a row (followBackoffMs). */
  intervalMs: number;
  signal: AbortSignal;
  /** The wait (tests pass their own). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * One follow's failures in a row, as both transports report them: a line on stderr for each
 * wait, and the follow's end once they have lasted OUTAGE_LIMIT_MS (the admin path's gRPC
 * answers through readWaitingOut, the API path's through the client follower's onWait).
 */
export class OutageWatch {
  private firstFailureAt = 0;
  private readonly now: () => number;

  constructor(private readonly notices: WaitNotices) {
    this.now = notices.now ?? Date.now;
  }

  /**
   * The `failures`-th failure in a row (`name` says what answered), about to wait `ms`: says
   * so, or throws `err` when the wait would take the outage past OUTAGE_LIMIT_MS.
   */
  waiting(err: unknown, name: string, failures: number, ms: number): void {
    const { notice, peer, position } = this.notices;
    if (failures === 1) this.firstFailureAt = this.now();
    if (this.now() - this.firstFailureAt + ms > OUTAGE_LIMIT_MS) {
      notice(`${peer}: ${name} for ${OUTAGE_LIMIT_MS / 60_000} min in a row: stopping.`);
      throw err;
    }
    notice(
      `${peer}: ${name}; waiting ${ms} ms, then reading on from position ${position()} (failure ${failures} in a row).`,
    );
  }
}

/** Waits `ms`, or less when `signal` aborts (then resolves: stopping is not a failure). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The gRPC status behind a caller's AppError, and the Retry-After the service sent with it. */
function grpcAnswer(err: unknown): { code: number; retryAfterMs?: number } | undefined {
  if (!isAppError(err)) return undefined;
  const cause = err.cause as Partial<ServiceError> | undefined;
  if (typeof cause?.code !== 'number') return undefined;
  // only a Retry-After the service sent counts: the caller makes up one second for a peer it
  // could not reach, which would poll a restarting service every second for five minutes
  const sent = cause.metadata?.get(RETRY_AFTER_METADATA).length ?? 0;
  const retryAfterMs =
    sent > 0 && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
  return { code: cause.code, retryAfterMs };
}

/**
 * Calls `read` until it answers, waiting out temporary gRPC failures as the REST path's follower
 * waits out 429, 503, 502 and 504: a Retry-After the service sent (past a minute: the follow
 * ends with the error), else the same back-off (followBackoffMs). The read is the same request
 * each time, so the follow goes on from where it printed last: nothing twice, nothing skipped.
 * Resolves undefined when `signal` aborts; rejects with any other error, with a Retry-After
 * too long to wait, or once failures in a row have lasted OUTAGE_LIMIT_MS.
 */
export async function readWaitingOut<T>(
  read: () => Promise<T>,
  opts: WaitOutOptions,
): Promise<T | undefined> {
  const sleep = opts.sleep ?? pause;
  const watch = new OutageWatch(opts);
  let failures = 0;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (opts.signal.aborted) return undefined;
      const answer = grpcAnswer(err);
      const name = answer === undefined ? undefined : TEMPORARY.get(answer.code);
      if (answer === undefined || name === undefined) throw err;
      failures++;
      const ms = answer.retryAfterMs ?? followBackoffMs(failures, opts.intervalMs);
      if (ms > MAX_RETRY_AFTER_MS) {
        opts.notice(
          `${opts.peer}: ${name} asking to wait ${ms / 1000} s, over a minute: stopping.`,
        );
        throw err;
      }
      watch.waiting(err, name, failures, ms);
      await sleep(ms, opts.signal);
      if (opts.signal.aborted) return undefined;
    }
  }
}
