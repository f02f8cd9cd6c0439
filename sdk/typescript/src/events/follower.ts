import { ApiError, ConnectionError } from '../errors/brandRecordsError.js';
import { RetryAfterError } from '../errors/codeErrors.js';
import type { Transport } from '../http/transport.js';
import type { EventFilters, FeedEvent, FeedPoller } from './eventTypes.js';
import { checkNumber, checkSignal, checkTimerMs, checkTypes } from '../optionChecks.js';
import { followBackoffMs } from './followBackoff.js';
import {
  checkpointAfterPage,
  isFollowCheckpoint,
  sameCheckpoint,
  type FollowCheckpoint,
} from './followCheckpoint.js';

export interface FollowOptions extends EventFilters {
  /** The stored checkpoint to resume from; FROM_OLDEST the first time. */
  from: FollowCheckpoint;
  /** Handles one event; awaited before the next. Throwing stops the follower (nothing is skipped). */
  onEvent: (event: FeedEvent) => unknown;
  /**
   * Stores the checkpoint after each handled event (and after an empty read on). The next
   * run passes what was stored last as `from`.
   */
  onCheckpoint: (checkpoint: FollowCheckpoint) => unknown;
  /**
   * How long to wait between polls while nothing is new (default 5000 ms): at least
   * MIN_FOLLOW_INTERVAL_MS (100), so a follower never polls flat out; a TypeError otherwise.
   */
  intervalMs?: number;
  /** Events per page, a whole number from 1 to 200 (default 100). */
  limit?: number;
  /** Stops following; the promise then resolves. */
  signal?: AbortSignal;
  /**
   * Told of each wait after a failed read, before it is waited: the error, how many reads in a
   * row have failed, the wait, and the position the read goes on from. For a log line or a
   * bound of your own: throwing ends the follow with that error (nothing is skipped).
   * A read fails only after the client's own retries (`maxRetries`, each attempt up to
   * `timeoutMs`) are spent, so with the defaults a feed that times out on every attempt is
   * silent for about three timeouts (90 s) plus backoff before the first onWait.
   */
  onWait?: (wait: FollowWait) => unknown;
}

/** A wait the follower is about to make after a failed read (FollowOptions.onWait). */
export interface FollowWait {
  /** The failed read's error: a RetryAfterError (429, 503), an ApiError (502, 504), a ConnectionError. */
  error: unknown;
  /** Reads failed in a row, this one included (1 for the first). */
  failures: number;
  /** How long the follower waits before reading again. */
  waitMs: number;
  /** The position the next read goes on from. */
  after: number;
}

const DEFAULT_INTERVAL_MS = 5_000;
/** The shortest interval between polls: below it a follower would poll flat out. */
export const MIN_FOLLOW_INTERVAL_MS = 100;
const DEFAULT_LIMIT = 100;
/** The API's largest page. */
const MAX_LIMIT = 200;
/** A proxy's answers that say "not now": the README's retry table retries them as 503. */
const PROXY_STATUSES = new Set([502, 504]);

/**
 * How long to wait before polling again after `error`, the `failures`-th in a row, or
 * undefined to end the follow with it: a 429 or 503 waits its Retry-After (one beyond
 * `maxRetryAfterSeconds` is thrown, as the client's retries throw it); a 429 or 503 without
 * one, a proxy's 502 or 504 and a lost connection back off from `intervalMs`, doubling up to
 * a minute. Anything else (CursorExpiredError, a 4xx, a 500) ends the follow.
 */
function failureWaitMs(
  error: unknown,
  failures: number,
  intervalMs: number,
  transport: Transport,
): number | undefined {
  const backoff = followBackoffMs(failures, intervalMs);
  if (error instanceof RetryAfterError) {
    if (error.retryAfterSeconds === undefined) return backoff;
    return transport.retryAfterWaitMs(error.retryAfterSeconds);
  }
  if (error instanceof ApiError && PROXY_STATUSES.has(error.status)) return backoff;
  if (error instanceof ConnectionError) return backoff;
  return undefined;
}

/**
 * The follower loop (docs/webhooks.md "Following the events feed instead of a receiver"):
 * 1. read `after=<checkpoint.after>` oldest first, with If-None-Match of the last empty read
 *    at that position (a 304 costs the API nothing but the rate-limit check);
 * 2. hand each event not in `checkpoint.handled` to onEvent, in order, and store the
 *    checkpoint with its id added; at the page's end store `after: next_after` with the
 *    handled ids that lie beyond the page (checkpointAfterPage: a checkpoint stored with a
 *    larger page keeps them until a page holds them);
 * 3. read on at once after a full page, else wait `intervalMs`.
 * A 429 or 503 waits out Retry-After (up to `maxRetryAfterSeconds`: a longer one is thrown);
 * a proxy's 502 or 504 and a lost connection back off from `intervalMs` (the client's own
 * retries come first), each wait told to onWait first; CursorExpiredError, other refusals and
 * the callbacks' errors (onWait's too) end it.
 */
export async function followFeed(
  events: FeedPoller,
  transport: Transport,
  options: FollowOptions,
): Promise<void> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('events.follow: options are required ({ from, onEvent, onCheckpoint }).');
  for (const name of ['onEvent', 'onCheckpoint'] as const) {
    if (typeof options[name] !== 'function')
      throw new TypeError(`events.follow: ${name} must be a function.`);
  }
  if (!isFollowCheckpoint(options.from))
    throw new TypeError('events.follow: `from` must be a FollowCheckpoint ({ after, handled }).');
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  checkTimerMs(intervalMs, 'intervalMs', 'events.follow', MIN_FOLLOW_INTERVAL_MS);
  const limit = options.limit ?? DEFAULT_LIMIT;
  checkNumber(limit, 'limit', 'events.follow', {
    min: 1,
    max: MAX_LIMIT,
    integer: true,
    what: `a whole number from 1 to ${MAX_LIMIT}`,
  });
  checkTypes(options.types, 'events.follow');
  checkSignal(options.signal, 'events.follow');
  const { signal } = options;
  let checkpoint: FollowCheckpoint = {
    after: options.from.after,
    handled: [...options.from.handled],
  };
  let etag: string | undefined;
  const wait = (ms: number) => transport.pause(ms, signal).catch(() => undefined);
  let failures = 0;
  while (!signal?.aborted) {
    let result;
    try {
      result = await events.poll({
        after: checkpoint.after,
        limit,
        types: options.types,
        recordId: options.recordId,
        since: options.since,
        until: options.until,
        etag,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) return;
      const ms = failureWaitMs(error, ++failures, intervalMs, transport);
      if (ms === undefined) throw error;
      await options.onWait?.({ error, failures, waitMs: ms, after: checkpoint.after });
      await wait(ms);
      continue;
    }
    failures = 0;
    if (result.notModified) {
      await wait(intervalMs);
      continue;
    }
    const handled = new Set(checkpoint.handled);
    for (const event of result.data) {
      if (handled.has(event.id)) continue;
      // stopped mid-page: the stored checkpoint already says which of its events were handled
      if (signal?.aborted) return;
      await options.onEvent(event);
      checkpoint = { after: checkpoint.after, handled: [...checkpoint.handled, event.id] };
      await options.onCheckpoint(checkpoint);
    }
    const next = checkpointAfterPage(checkpoint, {
      ids: result.data.map((event) => event.id),
      nextAfter: result.next_after ?? checkpoint.after,
      full: result.data.length >= limit,
    });
    if (!sameCheckpoint(next, checkpoint)) {
      checkpoint = next;
      await options.onCheckpoint(checkpoint);
    }
    // an empty read at this position: its tag makes the next poll a 304 until an event arrives
    etag = result.data.length === 0 ? result.meta.etag : undefined;
    if (result.data.length < limit) await wait(intervalMs);
  }
}
