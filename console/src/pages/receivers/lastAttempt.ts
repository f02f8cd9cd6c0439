import type { Receiver } from '@brand/proto/webhooks/v1';
import { formatTime } from '../../views/format';

type LastAttempt = Pick<Receiver, 'last_status' | 'last_delivery_at' | 'failing_since'>;

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * Whether the receiver's last attempt is one its health does not count. last_status and
 * last_delivery_at record every attempt, a Test's included, while the failure streak
 * (failing_since) counts only real deliveries of the types the receiver selects, and starts
 * afresh when an owner enables it again. A counted failure sets failing_since and a counted 2xx
 * clears it, so a failed last attempt without a streak, or a 2xx within one, was not counted.
 * Without this, a Test refused 500 read "OK: the last attempt succeeded" beside "HTTP 500".
 */
export function lastAttemptUncounted(r: LastAttempt): boolean {
  if (!r.last_delivery_at) return false;
  return r.failing_since ? is2xx(r.last_status) : !is2xx(r.last_status);
}

/** Whether the status line may say "the last attempt succeeded": it did, and it counted. */
export const lastAttemptSucceeded = (r: LastAttempt): boolean =>
  r.last_delivery_at !== '' && is2xx(r.last_status);

/**
 * The "Last attempt" row: when, the answer, and, when it did not count, which kinds do not
 * ("2026-11-30 23:23 UTC, HTTP 500, not counted (a Test, …)"), so it never contradicts the
 * status line above it.
 */
export function lastAttemptWords(r: LastAttempt): string {
  if (!r.last_delivery_at) return 'never';
  const answer = r.last_status ? `HTTP ${r.last_status}` : 'no response';
  if (!lastAttemptUncounted(r)) return `${formatTime(r.last_delivery_at)}, ${answer}`;
  const which = r.failing_since
    ? 'a Test, or a delivery of a type the receiver no longer selects'
    : 'a Test, a delivery of a type the receiver no longer selects, or one from before an owner enabled it again';
  return `${formatTime(r.last_delivery_at)}, ${answer}, not counted (${which}: tests and those never count toward its health)`;
}
