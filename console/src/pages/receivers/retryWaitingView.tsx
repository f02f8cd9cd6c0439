import type { Receiver } from '@brand/proto/webhooks/v1';
import { ATTEMPTS_PER_ROUND } from '@brand/shared/webhooks';
import { Csrf, type Viewer } from '../../views/layout';
import { waitingWords } from './receiverHealthText';

/**
 * "Retry all waiting": every delivery of the receiver waiting for its next retry gets it now
 * (RetryWaitingDeliveries), with what that does to their schedule said before the click. On the
 * deliveries and recovery tabs; nothing when nothing waits or the receiver is disabled (its
 * pending deliveries failed when it was disabled).
 */
export function RetryWaitingForm(props: { viewer: Viewer; receiver: Receiver; compact?: boolean }) {
  const { viewer, receiver: r } = props;
  if (!r.enabled || r.waiting === 0) return null;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  const n = r.waiting >= 10_000 ? 'all' : r.waiting.toLocaleString('en-US');
  const form = (
    <form class="actions" method="post" action={`${base}/retry-waiting`}>
      <Csrf token={viewer.csrfToken} />
      <button type="submit" class="secondary">
        Retry {n} waiting {r.waiting === 1 ? 'delivery' : 'deliveries'} now
      </button>
      <span class="hint">
        {waitingWords(r)}. Each gets its next attempt now, oldest first: one of its{' '}
        {ATTEMPTS_PER_ROUND}, so one that fails again waits for its next retry as scheduled.
      </span>
    </form>
  );
  if (props.compact) return form;
  return (
    <section aria-labelledby="retry-waiting">
      <h2 id="retry-waiting">Retry the waiting deliveries now</h2>
      <p>
        When your receiver is back, its waiting deliveries need not wait for their next retry.
        Deliveries already due or being attempted are left as they are, so pressing twice sends
        nothing twice. Those that failed for good are not included: recover them below.
      </p>
      {form}
    </section>
  );
}

/** What a retry of every waiting delivery did, from the numbers its redirect carries. */
export function retriedWaitingNotice(query: Record<string, unknown>): string {
  const n = (v: unknown) => (typeof v === 'string' && /^\d{1,7}$/.test(v) ? Number(v) : 0);
  const madeDue = n(query.made_due);
  const remaining = n(query.remaining);
  if (madeDue === 0) {
    return 'Nothing was waiting for a later retry: deliveries already due or being attempted are sent as scheduled.';
  }
  const count = madeDue.toLocaleString('en-US');
  const more =
    remaining > 0
      ? ` ${remaining.toLocaleString('en-US')} more still wait beyond this request's bound: retry again.`
      : '';
  return `${count} waiting ${madeDue === 1 ? 'delivery gets its' : 'deliveries get their'} next attempt now, oldest first, each one of its ${ATTEMPTS_PER_ROUND}. Their outcome shows below as it happens.${more}`;
}
