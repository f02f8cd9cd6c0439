// W0's one task, `deliver_webhook`: one signed POST of one event to one subscription, as a
// team would write it from graphile-worker's documentation (a task is an async function of
// its payload and helpers; a job that throws is retried by graphile-worker). The contract's
// delivery request: the headers of docs/contract.md#delivery-request, the signature
// `sha256=<hex HMAC-SHA256 over "<timestamp>.<raw body>">` with the subscription's secret,
// made again on every attempt; success is any 2xx within 30 s (5 s to connect); redirects are
// not followed (undici's request never follows them). A failed attempt schedules the next one
// as a new job whose `runAt` is the contract's next delay, jittered by +-10 % (5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: 10 attempts), and the job itself completes; the
// attempt counter travels in the payload. Every job has `maxAttempts: 10`: graphile-worker's own
// retries (its exponential backoff) only for a task that throws, i.e. the subscription lookup
// failing, not a receiver's answer.
import { MAX_ATTEMPTS, retryDelayMs, signedPost } from '../peers/signedPost.mjs';

export const TASK = 'deliver_webhook';
export { MAX_ATTEMPTS };

/** The job's payload: { subscription_id, type, body (the delivery body, exact text), attempt }. */
export async function deliverWebhook(payload, helpers) {
  const { subscription_id: subscriptionId, type, body, attempt } = payload;
  const {
    rows: [subscription],
  } = await helpers.query('select url, secret from w0.subscriptions where id = $1', [
    subscriptionId,
  ]);
  if (!subscription) return; // deleted since: nothing to deliver
  const failure = await signedPost(subscription, type, body, attempt);
  if (failure === undefined) return;
  if (attempt >= MAX_ATTEMPTS) {
    helpers.logger.error(
      `subscription ${subscriptionId}: attempt ${attempt} failed (${failure}); giving up`,
    );
    return;
  }
  const delayMs = retryDelayMs(attempt);
  await helpers.addJob(
    TASK,
    { ...payload, attempt: attempt + 1 },
    { runAt: new Date(Date.now() + delayMs), maxAttempts: MAX_ATTEMPTS },
  );
  helpers.logger.warn(
    `subscription ${subscriptionId}: attempt ${attempt} failed (${failure}); next in ${Math.round(delayMs / 1000)} s`,
  );
}
