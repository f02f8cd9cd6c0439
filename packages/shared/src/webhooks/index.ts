const DAY_MS = 24 * 3_600_000;

/**
 * The bounds of receivers on day 2 (issue 24), in one place: the webhooks service enforces
 * them, the console and brandctl state them on their pages and in their help.
 */

/** Recover since reaches back at most this far (14 days). */
export const RECOVERY_MAX_AGE_MS = 14 * DAY_MS;

/**
 * Events, deliveries and attempts are kept this long after the event by default
 * (DELIVERY_HISTORY_RETENTION_MS; never less than RECOVERY_MAX_AGE_MS): the delivery log
 * reaches back this far.
 */
export const DELIVERY_HISTORY_RETENTION_DEFAULT_MS = 30 * DAY_MS;

/** Recover since re-queues at most this many deliveries per request (RECOVERY_MAX_PER_REQUEST may lower it). */
export const RECOVERY_MAX_PER_REQUEST = 10_000;

/** A secret switch can be scheduled at most this far ahead (7 days). */
export const MAX_SWITCH_AHEAD_MS = 7 * DAY_MS;

/**
 * Delays after the 1st, 2nd, ... 9th failed attempt of a round (docs/contract.md#retries),
 * before jitter and RETRY_TIME_SCALE: the webhooks service schedules with them, and the console
 * says what Retry now does to them.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  14 * 3600_000,
  20 * 3600_000,
  24 * 3600_000,
] as const;

/** Attempts in one round of the retry schedule (10); a resend starts a new round. */
export const ATTEMPTS_PER_ROUND = RETRY_DELAYS_MS.length + 1;

export {
  DATADOG_SITES,
  datadogIntakeUrl,
  KIND_WORDS,
  STREAM_KINDS,
  type DatadogSite,
  type StreamKind,
  type StreamOptions,
} from './auditStreamKinds';
