/**
 * The bounds of what records keeps of API usage (issue 26), in one place: the retention
 * sweep, the queries and the pages that state them read these.
 */
export const USAGE_BOUNDS = {
  /** Minute rows are kept this long (the 24-hour chart). */
  minuteRetentionHours: 24,
  /** Hour rows and request-log entries are kept this many days. */
  retentionDays: 7,
  /** Request-log entries kept per brand: the newest; the sweep trims older ones. */
  requestLogPerBrand: 10_000,
  /** The most counts and log entries one RecordUsage call may carry. */
  maxCountsPerCall: 20_000,
  maxRequestsPerCall: 5_000,
} as const;

/** "2xx", "304", "429", "5xx" or "4xx:<error code>". */
export const OUTCOME_PATTERN = /^(?:2xx|304|429|5xx|4xx:[a-z_]{1,64})$/;

/** The owner-only reasons behind a 401 the log keeps ('' for none); the table checks the same list. */
export type RefusalReason =
  '' | 'revoked' | 'expired' | 'wrong_environment' | 'other_brand' | 'no_key' | 'unknown_key';
