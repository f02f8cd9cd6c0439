import type { Delivery } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime, formatTimeToSecond } from '../../views/format';
import { Csrf, type Viewer } from '../../views/layout';
import { attemptOutcome } from './attemptWords';
import { DeliveryStatusText, deliveryStatusName, isWaitingToRetry } from './deliveryStatus';

/** What the member may do to deliveries of this receiver, from the permission table. */
export interface DeliveryRights {
  canResend: boolean;
  canRetry: boolean;
  /** A disabled receiver gets nothing: Retry now is not offered (the service would refuse). */
  receiverEnabled: boolean;
}

/** The delivery log of a receiver, newest first, each attempt on its own line. */
export function DeliveryTable(props: {
  viewer: Viewer;
  receiverId: string;
  deliveries: Delivery[];
  /** The log shows part of the history (filters, an older page): "none match", not "none yet". */
  filtered?: boolean;
  rights: DeliveryRights;
}) {
  const base = `/brands/${props.viewer.brandId}/receivers/${props.receiverId}/deliveries`;
  return (
    <table>
      <caption class="hint">Deliveries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts (time, outcome, duration)</th>
          <th scope="col">Next retry</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.length === 0 && (
          <tr>
            <td colSpan={5}>
              {props.filtered ? 'No deliveries here match.' : 'No deliveries yet.'}
            </td>
          </tr>
        )}
        {props.deliveries.map((d) => (
          <tr>
            <td>
              <a href={`${base}/${d.id}`}>{EVENT_TYPES.fromProto(d.event_type)}</a>
              {d.test ? ' (test)' : ''}
              <br />
              <code class="hint token">{d.event_id}</code>
              {!d.test && (
                <>
                  <br />
                  <a href={`/brands/${props.viewer.brandId}/events?find=${d.event_id}`}>
                    At every receiver
                  </a>
                </>
              )}
            </td>
            <td>
              <DeliveryStatusText delivery={d} />
            </td>
            <td>
              <AttemptList delivery={d} />
            </td>
            <td>{d.next_attempt_at ? formatTime(d.next_attempt_at) : '—'}</td>
            <td>
              <DeliveryActions viewer={props.viewer} delivery={d} rights={props.rights} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Each attempt on one line: number, time to the second, outcome in words, duration. */
function AttemptList(props: { delivery: Delivery }) {
  if (props.delivery.attempts.length === 0) return <span>none yet</span>;
  return (
    <ul>
      {props.delivery.attempts.map((a) => (
        <li>
          #{a.number} {formatTimeToSecond(a.started_at)}: {attemptOutcome(a)}, {a.duration_ms} ms
        </li>
      ))}
    </ul>
  );
}

/**
 * Retry now (a delivery waiting for its next attempt) or Resend (a finished one), for those
 * the permission table allows; nothing otherwise.
 */
export function DeliveryActions(props: {
  viewer: Viewer;
  delivery: Delivery;
  rights: DeliveryRights;
}) {
  const { delivery: d, rights } = props;
  const base = `/brands/${props.viewer.brandId}/receivers/${d.receiver_id}/deliveries/${d.id}`;
  if (rights.canRetry && rights.receiverEnabled && isWaitingToRetry(d)) {
    return (
      <form method="post" action={`${base}/retry`}>
        <Csrf token={props.viewer.csrfToken} />
        <button type="submit" class="secondary" aria-label={`Retry delivery ${d.id} now`}>
          Retry now
        </button>
      </form>
    );
  }
  if (rights.canResend && deliveryStatusName(d.status) !== 'pending') {
    return (
      <form method="post" action={`${base}/resend`}>
        <Csrf token={props.viewer.csrfToken} />
        <button type="submit" class="secondary" aria-label={`Resend delivery ${d.id}`}>
          Resend
        </button>
      </form>
    );
  }
  return null;
}
