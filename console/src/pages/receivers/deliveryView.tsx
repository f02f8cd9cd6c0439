import type { Delivery } from '@brand/proto/webhooks/v1';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { Csrf, Layout, type Viewer } from '../../views/layout';

function deliveryStatusName(s: DeliveryStatus): 'pending' | 'succeeded' | 'failed' {
  if (s === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED) return 'succeeded';
  if (s === DeliveryStatus.DELIVERY_STATUS_FAILED) return 'failed';
  return 'pending';
}

/** Pending is said plainly: queued is not delivered (SPEC 6.4). */
function DeliveryStatusText(props: { delivery: Delivery }) {
  const name = deliveryStatusName(props.delivery.status);
  const text =
    name === 'succeeded'
      ? 'Delivered: the receiver answered 2xx'
      : name === 'failed'
        ? 'Failed'
        : props.delivery.attempt_count === 0
          ? 'Queued, not delivered yet'
          : 'Waiting to retry';
  return <span class={`status-${name}`}>{text}</span>;
}

/** The delivery log of a receiver, newest first, each attempt on its own line. */
export function DeliveryTable(props: {
  viewer: Viewer;
  receiverId: string;
  deliveries: Delivery[];
  canResend: boolean;
}) {
  const base = `/brands/${props.viewer.brandId}/receivers/${props.receiverId}/deliveries`;
  return (
    <table>
      <caption class="hint">Deliveries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts (time, HTTP status or error, duration)</th>
          <th scope="col">Next retry</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.length === 0 && (
          <tr>
            <td colSpan={5}>No deliveries yet.</td>
          </tr>
        )}
        {props.deliveries.map((d) => (
          <tr>
            <td>
              <a href={`${base}/${d.id}`}>{EVENT_TYPES.fromProto(d.event_type)}</a>
              {d.test ? ' (test)' : ''}
              <br />
              <code class="hint">{d.event_id}</code>
            </td>
            <td>
              <DeliveryStatusText delivery={d} />
            </td>
            <td>
              <AttemptList delivery={d} />
            </td>
            <td>{d.next_attempt_at ? formatTime(d.next_attempt_at) : '—'}</td>
            <td>
              {props.canResend && deliveryStatusName(d.status) !== 'pending' && (
                <form method="post" action={`${base}/${d.id}/resend`}>
                  <Csrf token={props.viewer.csrfToken} />
                  <button type="submit" class="secondary" aria-label={`Resend delivery ${d.id}`}>
                    Resend
                  </button>
                </form>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AttemptList(props: { delivery: Delivery }) {
  if (props.delivery.attempts.length === 0) return <span>none yet</span>;
  return (
    <ul>
      {props.delivery.attempts.map((a) => (
        <li>
          #{a.number} {formatTime(a.started_at)}:{' '}
          {a.status_code ? `HTTP ${a.status_code}` : a.error_class || 'no response'}
          {a.error_class && a.status_code ? ` (${a.error_class})` : ''}, {a.duration_ms} ms
        </li>
      ))}
    </ul>
  );
}

/**
 * One delivery as it stands. While it is pending, /static/poll.js refreshes the region marked
 * data-poll (aria-live), and the Refresh link does the same without JavaScript.
 */
export function DeliveryPage(props: { viewer: Viewer; receiverLabel: string; delivery: Delivery }) {
  const { viewer, delivery } = props;
  const state = deliveryStatusName(delivery.status);
  const receiverPath = `/brands/${viewer.brandId}/receivers/${delivery.receiver_id}`;
  return (
    <Layout
      title="Delivery"
      viewer={viewer}
      section="receivers"
      scripts={state === 'pending' ? ['/static/poll.js'] : []}
    >
      <h1>
        Delivery of {EVENT_TYPES.fromProto(delivery.event_type)}
        {delivery.test ? ' (test)' : ''}
      </h1>
      <p>
        To <a href={receiverPath}>{props.receiverLabel}</a>. Event <code>{delivery.event_id}</code>,
        delivery <code>{delivery.id}</code>, queued {formatTime(delivery.created_at)}.
      </p>
      <div data-poll={state} aria-live="polite" id="delivery-state">
        <p>
          Status: <DeliveryStatusText delivery={delivery} />
          {delivery.completed_at ? ` (${formatTime(delivery.completed_at)})` : ''}
        </p>
        {delivery.last_error && <p>Last error: {delivery.last_error}</p>}
        {delivery.next_attempt_at && <p>Next attempt: {formatTime(delivery.next_attempt_at)}</p>}
        <AttemptList delivery={delivery} />
      </div>
      {state === 'pending' && (
        <p class="hint">
          Queued is not delivered: a worker sends it and the receiver must accept it. This page
          updates by itself; or <a href={`${receiverPath}/deliveries/${delivery.id}`}>refresh</a>.
        </p>
      )}
      <p>
        <a href={receiverPath}>Back to the receiver</a>
      </p>
    </Layout>
  );
}
