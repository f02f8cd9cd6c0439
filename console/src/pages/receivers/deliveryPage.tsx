import type { Delivery } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime, formatTimeToSecond } from '../../views/format';
import { Layout, Notice, type Viewer } from '../../views/layout';
import { AttemptDetail } from './attemptDetail';
import { DeliveryStatusText, deliveryStatusName, isWaitingToRetry } from './deliveryStatus';
import { attemptsWords, DeliveryActions, type DeliveryRights } from './deliveryView';
import { retryNowWords, retryOutcome } from './retryWords';

/**
 * One delivery as it stands, to debug it: its status and actions, each attempt (newest
 * first) with what came back, and the exact event JSON that was sent. While it is pending,
 * /static/poll.js refreshes the regions marked data-refresh (the status line is aria-live),
 * and the Refresh link does the same without JavaScript.
 */
export function DeliveryPage(props: {
  viewer: Viewer;
  receiverLabel: string;
  delivery: Delivery;
  rights: DeliveryRights;
  notice?: string;
  error?: string;
  /** The attempt a Retry now just made: the banner says what became of it. */
  retriedAttempt?: number;
}) {
  const { viewer, delivery } = props;
  const retried =
    props.retriedAttempt === undefined ? undefined : retryOutcome(delivery, props.retriedAttempt);
  const canRetry =
    props.rights.canRetry && props.rights.receiverEnabled && isWaitingToRetry(delivery);
  const state = deliveryStatusName(delivery.status);
  const receiverPath = `/brands/${viewer.brandId}/receivers/${delivery.receiver_id}`;
  const newestFirst = delivery.attempts.map((a, i) => ({ a, i })).reverse();
  return (
    <Layout
      title="Delivery"
      viewer={viewer}
      section="receivers"
      scripts={state === 'pending' ? ['/static/poll.js'] : []}
    >
      <p>
        <a href={`${receiverPath}/deliveries`}>Back to the deliveries of {props.receiverLabel}</a>
      </p>
      <h1>
        Delivery of {EVENT_TYPES.fromProto(delivery.event_type)}
        {delivery.test ? ' (test)' : ''}
      </h1>
      <p>
        To <a href={receiverPath}>{props.receiverLabel}</a>. Event <code>{delivery.event_id}</code>
        {!delivery.test && (
          <>
            {' '}
            (
            <a href={`/brands/${props.viewer.brandId}/events?find=${delivery.event_id}`}>
              at every receiver
            </a>
            )
          </>
        )}
        , delivery <code>{delivery.id}</code>, queued {formatTimeToSecond(delivery.created_at)}.
        {delivery.signed_with_new_secret &&
          ' Signed with the new secret of the pending rotation, not the current one.'}
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <div data-poll={state}>
        <div id="retry-outcome" data-refresh aria-live="polite">
          {retried && <Notice tone={retried.tone}>{retried.text}</Notice>}
        </div>
        <div id="delivery-state" data-refresh aria-live="polite">
          <p>
            Status: <DeliveryStatusText delivery={delivery} />
            {delivery.completed_at ? ` (${formatTime(delivery.completed_at)})` : ''}
          </p>
          {delivery.last_error && <p>Last error: {delivery.last_error}</p>}
          <p>Attempts: {attemptsWords(delivery)}</p>
          {delivery.next_attempt_at && (
            <p>Next attempt: {formatTimeToSecond(delivery.next_attempt_at)}</p>
          )}
        </div>
        <div id="delivery-actions" data-refresh>
          <DeliveryActions viewer={viewer} delivery={delivery} rights={props.rights} />
          {canRetry && <p class="hint">{retryNowWords(delivery)}</p>}
        </div>
        <h2>Attempts, newest first</h2>
        <div id="delivery-attempts" data-refresh>
          {newestFirst.length === 0 ? (
            <p>No attempt yet.</p>
          ) : (
            newestFirst.map(({ a, i }) => <AttemptDetail attempt={a} index={i} />)
          )}
        </div>
      </div>
      {state === 'pending' && (
        <p class="hint">
          Queued is not delivered: a worker sends it and the receiver must accept it. This page
          updates by itself; or <a href={`${receiverPath}/deliveries/${delivery.id}`}>refresh</a>.
        </p>
      )}
      <h2>What was sent</h2>
      {delivery.payload ? (
        <>
          <p class="hint">
            The exact event JSON, the same bytes on every attempt (each attempt's headers are with
            it above). Receivers deduplicate on its <code>id</code> and <code>data.object.id</code>.
          </p>
          <pre class="body">
            <code>{delivery.payload}</code>
          </pre>
        </>
      ) : (
        <p class="hint">The event JSON of this delivery is no longer kept.</p>
      )}
    </Layout>
  );
}
