/** The longest back-off between polls after failures in a row that named no Retry-After. */
const MAX_FOLLOW_BACKOFF_MS = 60_000;

/**
 * How long a follower waits before polling again after its `failures`-th failure in a row
 * (from 1) that named no Retry-After: `intervalMs`, doubling with each failure, up to a minute.
 * Exported for a follow loop of your own (brandctl's over the admin token waits the same).
 */
export function followBackoffMs(failures: number, intervalMs: number): number {
  return Math.min(MAX_FOLLOW_BACKOFF_MS, intervalMs * 2 ** Math.min(failures - 1, 30));
}
