import type { Delivery } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { ATTEMPTS_PER_ROUND } from '@brand/shared/webhooks';
import { UtcTime } from '../../views/utcTime';
import type { Viewer } from '../../views/layout';
import { attemptOutcome } from './attemptWords';
import { DeliveryStatusText, deliveryStatusName, isWaitingToRetry } from './deliveryStatus';
import { PostButton } from '../../views/postButton';

/** What the member may do to deliveries of this receiver, from the permission table. */
export interface DeliveryRights {
  canResend: boolean;
  canRetry: boolean;
  /** A disabled receiver gets nothing: Retry now is not offered (the service would refuse). */
  receiverEnabled: boolean;
}

/**
 * "2 of 10", or "12 (2 of 10 this round)" once a resend started a new round: how far a delivery
 * is through the retry schedule.
 */
export function attemptsWords(d: Pick<Delivery, 'attempt_count' | 'attempts_in_round'>): string {
  const round = `${d.attempts_in_round} of ${ATTEMPTS_PER_ROUND}`;
  return d.attempt_count === d.attempts_in_round
    ? round
    : `${d.attempt_count} (${round} this round)`;
}

/**
 * A delivery log, newest first, one line a delivery: the event (and where it went at every
 * receiver), its state, how far through the schedule, the last answer, when the next attempt
 * is due, and Retry now or Resend. Each attempt is on the delivery's own page. With
 * `receiverLabels` (the brand-wide log) a column names each delivery's receiver.
 */
export function DeliveryTable(props: {
  viewer: Viewer;
  deliveries: Delivery[];
  /** The log shows part of the history (filters, an older page): "none match", not "none yet". */
  filtered?: boolean;
  /** The filter was refused and nothing asked for (as on Events): the row says to correct it. */
  refused?: boolean;
  rights: (d: Delivery) => DeliveryRights;
  receiverLabels?: ReadonlyMap<string, string>;
}) {
  const brandBase = `/brands/${props.viewer.brandId}`;
  const labels = props.receiverLabels;
  const columns = labels ? 7 : 6;
  return (
    <table class="stack log">
      <caption class="visually-hidden">Deliveries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          {labels && <th scope="col">Receiver</th>}
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Next attempt</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.length === 0 && (
          <tr>
            <td colSpan={columns}>
              {props.refused
                ? 'Correct the filter above to see deliveries.'
                : props.filtered
                  ? 'No deliveries here match.'
                  : 'No deliveries yet.'}
            </td>
          </tr>
        )}
        {props.deliveries.map((d) => {
          const last = d.attempts.at(-1);
          return (
            <tr>
              <td>
                <a href={`${brandBase}/receivers/${d.receiver_id}/deliveries/${d.id}`}>
                  {EVENT_TYPES.fromProto(d.event_type)}
                </a>
                {d.test ? ' (test)' : ''}{' '}
                {d.test ? (
                  <code class="hint token small">{d.event_id}</code>
                ) : (
                  <a
                    class="hint"
                    href={`${brandBase}/events?find=${d.event_id}`}
                    title="This event at every receiver"
                  >
                    <code class="token small">{d.event_id}</code>
                  </a>
                )}
              </td>
              {labels && (
                <td data-label="Receiver">
                  <a href={`${brandBase}/receivers/${d.receiver_id}`}>
                    {labels.get(d.receiver_id) ?? d.receiver_id}
                  </a>
                </td>
              )}
              <td data-label="State" class="nowrap">
                <DeliveryStatusText delivery={d} short />
              </td>
              <td data-label="Attempts" class="nowrap">
                {attemptsWords(d)}
              </td>
              <td data-label="Last answer">{last ? attemptOutcome(last) : '—'}</td>
              <td data-label="Next attempt" class="when">
                <UtcTime at={d.next_attempt_at} toSecond otherwise="—" />
              </td>
              <td data-label="Actions" class="nowrap">
                <DeliveryActions viewer={props.viewer} delivery={d} rights={props.rights(d)} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Below a log: what Retry now and Resend do to the retry schedule. */
export function ScheduleHint() {
  return (
    <p class="hint">
      <strong>Retry now</strong> makes a waiting delivery's next attempt now: it is one of the{' '}
      {ATTEMPTS_PER_ROUND} attempts of its round, so if it fails the schedule goes on from there,
      and a failure of its last fails the delivery. <strong>Resend</strong> sends a finished
      delivery again as a new round of {ATTEMPTS_PER_ROUND}. Both send the same event id, so your
      receiver deduplicates them.
    </p>
  );
}

/**
 * Retry now (a delivery waiting for its next attempt) or Resend (a finished one), for those
 * the permission table allows; nothing otherwise. Each button's name says which attempt it
 * makes.
 */
export function DeliveryActions(props: {
  viewer: Viewer;
  delivery: Delivery;
  rights: DeliveryRights;
}) {
  const { delivery: d, rights } = props;
  const base = `/brands/${props.viewer.brandId}/receivers/${d.receiver_id}/deliveries/${d.id}`;
  if (rights.canRetry && rights.receiverEnabled && isWaitingToRetry(d)) {
    const attempt = `attempt ${d.attempts_in_round + 1} of ${ATTEMPTS_PER_ROUND}`;
    return (
      <PostButton
        action={`${base}/retry`}
        csrfToken={props.viewer.csrfToken}
        kind="secondary"
        label={`Retry delivery ${d.id} now (${attempt})`}
        title={`Makes ${attempt} now`}
      >
        Retry now
      </PostButton>
    );
  }
  if (rights.canResend && deliveryStatusName(d.status) !== 'pending') {
    return (
      <PostButton
        action={`${base}/resend`}
        csrfToken={props.viewer.csrfToken}
        kind="secondary"
        label={`Resend delivery ${d.id} (a new round of ${ATTEMPTS_PER_ROUND} attempts)`}
      >
        Resend
      </PostButton>
    );
  }
  return null;
}
