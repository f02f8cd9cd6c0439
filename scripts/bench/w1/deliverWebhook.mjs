// W1's processor, `deliver_webhook`: one signed POST of one event to one subscription, as a
// team would write it from BullMQ's documentation (a processor is an async function of the
// job; one that throws fails the attempt, and BullMQ retries it after the worker's backoff
// strategy, here the contract's schedule: main.mjs). The attempt number is BullMQ's own count
// (attemptsMade before this one, plus one), sent as X-Service-Attempt.
import { signedPost } from '../peers/signedPost.mjs';

export const QUEUE = 'webhooks';
export const TASK = 'deliver_webhook';

/** The job's data: { subscription_id, type, body (the delivery body, exact text) }. */
export async function deliverWebhook(job, pgPool) {
  const { subscription_id: subscriptionId, type, body } = job.data;
  const {
    rows: [subscription],
  } = await pgPool.query('select url, secret from w1.subscriptions where id = $1', [
    subscriptionId,
  ]);
  if (!subscription) return; // deleted since: nothing to deliver
  const failure = await signedPost(subscription, type, body, job.attemptsMade + 1);
  if (failure !== undefined) throw new Error(failure);
}
