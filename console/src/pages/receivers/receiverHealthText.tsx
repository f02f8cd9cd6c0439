import type { Receiver } from '@brand/proto/webhooks/v1';
import { formatTime } from '../../views/format';
import type { ReceiverAttention } from '../../views/receiverAttention';
import { lastAttemptSucceeded } from './lastAttempt';

/** Whether a receiver needs its owners: failing now, or disabled by the service. */
export function attentionOf(r: Receiver): ReceiverAttention | undefined {
  if (!r.enabled && r.disabled_by_service) {
    return {
      id: r.id,
      label: r.label,
      failingSince: r.failing_since,
      lastError: r.last_error,
      disabledAt: r.disabled_at,
      disabledReason: r.disabled_reason,
    };
  }
  if (r.enabled && r.failing_since) {
    return { id: r.id, label: r.label, failingSince: r.failing_since, lastError: r.last_error };
  }
  return undefined;
}

/**
 * A receiver's health in a few words, so a failing one stands out: since when it fails, how
 * many attempts in a row, and the last error; or that the service disabled it.
 */
export function ReceiverHealthText(props: { receiver: Receiver }) {
  const { receiver: r } = props;
  if (!r.enabled && r.disabled_by_service) {
    return (
      <span class="flag-failing">
        <strong>Disabled by the service</strong>
        {r.disabled_at ? ` since ${formatTime(r.disabled_at)}` : ''}
        {r.last_error ? `. Last error: ${r.last_error}` : ''}
      </span>
    );
  }
  if (!r.enabled) return <span>paused (disabled by an owner)</span>;
  if (r.failing_since) {
    return (
      <span class="flag-failing">
        <strong>Failing</strong> since {formatTime(r.failing_since)} ({r.failure_count}{' '}
        {r.failure_count === 1 ? 'failure' : 'failures'} in a row)
        {r.last_error ? `. Last error: ${r.last_error}` : ''}
        {r.waiting > 0 ? `. ${waitingWords(r)}` : ''}
      </span>
    );
  }
  // not failing: the last attempt succeeded, or it did not count (a Test refused 500: lastAttempt.ts)
  const how = lastAttemptSucceeded(r) ? 'the last attempt succeeded' : 'nothing is failing';
  // a backlog that waits is never "OK": it is catching up, and says how far behind it is
  if (r.waiting > 0) {
    return (
      <span class="flag-waiting">
        <strong>Catching up</strong>: {how}; {waitingWords(r)}
      </span>
    );
  }
  return <span>{r.last_delivery_at ? `OK: ${how}` : 'no deliveries yet'}</span>;
}

/** "29 deliveries waiting, the oldest from 25 Nov 12:03 UTC" (10,000 means at least that). */
export function waitingWords(r: Pick<Receiver, 'waiting' | 'oldest_waiting_at'>): string {
  const n = `${r.waiting >= 10_000 ? 'over ' : ''}${r.waiting.toLocaleString('en-US')}`;
  const oldest = r.oldest_waiting_at ? `, the oldest from ${formatTime(r.oldest_waiting_at)}` : '';
  return `${n} ${r.waiting === 1 ? 'delivery' : 'deliveries'} waiting${oldest}`;
}
