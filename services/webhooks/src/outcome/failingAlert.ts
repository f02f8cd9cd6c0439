import type { FailureStreak } from '../receivers/receiverRepo';

/** When a run of failures is worth telling the owners (RECEIVER_FAILING_ALERT_AFTER_*). */
export interface FailingAlertSettings {
  /** RECEIVER_FAILING_ALERT_AFTER_FAILURES: consecutive failed attempts (5). */
  afterFailures: number;
  /** RECEIVER_FAILING_ALERT_AFTER_MS: or a run this old when a failure is recorded (10 min). */
  afterMs: number;
}

/**
 * Whether the failure just recorded makes its run worth the owners' one "failing" mail: the
 * run has reached `afterFailures` consecutive failed attempts, or began `afterMs` ago or
 * more, and was not alerted yet. A single failure, or a flaky minute, says nothing; a
 * receiver down for minutes says it once.
 */
export function failingAlertDue(
  streak: FailureStreak,
  now: Date,
  s: FailingAlertSettings,
): boolean {
  if (streak.failing_alerted_at !== null || streak.failing_since === null) return false;
  return (
    streak.failure_count >= s.afterFailures ||
    now.getTime() - streak.failing_since.getTime() >= s.afterMs
  );
}
