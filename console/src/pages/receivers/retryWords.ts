import type { Delivery } from '@brand/proto/webhooks/v1';
import { ATTEMPTS_PER_ROUND, RETRY_DELAYS_MS } from '@brand/shared/webhooks';
import { formatTimeToSecond } from '../../views/format';
import { attemptOutcome } from './attemptWords';
import { deliveryStatusName } from './deliveryStatus';

/** A scheduled delay in words: "5 s", "5 min", "2 hours". */
function delayWords(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  const hours = ms / 3_600_000;
  return `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
}

/**
 * What Retry now does to a waiting delivery's schedule, said beside the button (issue 62: it
 * spent one of the 10 attempts without saying so): which attempt it makes, instead of when, and
 * what follows if that attempt fails too.
 */
export function retryNowWords(d: Delivery): string {
  const attempt = d.attempts_in_round + 1;
  const instead = d.next_attempt_at
    ? ` instead of at ${formatTimeToSecond(d.next_attempt_at)}`
    : '';
  const head = `Retry now makes attempt ${attempt} of ${ATTEMPTS_PER_ROUND} now${instead}: it counts as one of the ${ATTEMPTS_PER_ROUND}.`;
  if (attempt >= ATTEMPTS_PER_ROUND) {
    return `${head} It is the last of this round: if it fails, the delivery fails (Resend then starts a new round).`;
  }
  const delay = RETRY_DELAYS_MS[attempt - 1] ?? 0;
  return `${head} If it fails, attempt ${attempt + 1} follows after the usual delay (about ${delayWords(delay)}).`;
}

/**
 * What became of a Retry now, for the banner on the delivery's page after it (issue 62: "the
 * next attempt is due now" stayed after that attempt had failed). `attempt` is the number the
 * retry made (X-Service-Attempt), carried by the redirect; the page refreshes itself while the
 * delivery is pending, so the banner follows the attempt.
 */
export function retryOutcome(
  d: Delivery,
  attempt: number,
): { tone: 'info' | 'ok' | 'warn' | 'error'; text: string } | undefined {
  const roundStart = d.attempt_count - d.attempts_in_round;
  const inRound = attempt - roundStart;
  const which =
    inRound >= 1 ? `attempt ${inRound} of ${ATTEMPTS_PER_ROUND}` : `attempt #${attempt}`;
  const made = d.attempts.find((a) => a.number === attempt);
  const state = deliveryStatusName(d.status);
  if (!made) {
    return state === 'pending'
      ? {
          tone: 'info',
          text: `Retry queued: ${which} is due now, and this page shows what your receiver answers.`,
        }
      : undefined;
  }
  if (!made.error_class) {
    return { tone: 'ok', text: `The retry was delivered: ${which} got ${attemptOutcome(made)}.` };
  }
  const failed = `The retry failed: ${which} got ${attemptOutcome(made)}.`;
  if (state === 'succeeded')
    return { tone: 'ok', text: `${failed} A later attempt was delivered.` };
  if (state === 'failed') {
    return {
      tone: 'error',
      text: `${failed} The delivery has failed (its round of ${ATTEMPTS_PER_ROUND} is used up, or its receiver was disabled): Resend sends it again as a new round.`,
    };
  }
  const next = d.next_attempt_at ? ` at ${formatTimeToSecond(d.next_attempt_at)}` : '';
  return {
    tone: 'warn',
    text: `${failed} It counted as one of the ${ATTEMPTS_PER_ROUND}; the schedule goes on with the next attempt${next}.`,
  };
}
