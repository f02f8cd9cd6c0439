import type { ApiKey } from '@brand/proto/access/v1';
import type { Plan } from '@brand/proto/plans/v1';
import type { Receiver } from '@brand/proto/webhooks/v1';
import { CAMPAIGN_TYPES, EVENT_TYPES } from '@brand/shared/enums';
import { formatRemaining } from '../../views/countdown';
import { formatTime, formatTimeToSecond } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { attemptOutcome } from '../receivers/attemptWords';
import { DeliveryStatusText } from '../receivers/deliveryStatus';
import { ReceiverHealthText } from '../receivers/receiverHealthText';
import type { Failure } from './overviewData';

/** What a panel says when its service could not answer. */
export function Unavailable(props: { what: string }) {
  return (
    <p class="hint">{props.what} cannot be shown right now; the rest of the page is current.</p>
  );
}

/** The receivers, those that need attention first, each with its health in words. */
export function ReceiversPanel(props: { base: string; receivers: Receiver[] }) {
  if (props.receivers.length === 0) {
    return (
      <p>
        No receivers yet: <a href={`${props.base}/receivers`}>add one</a> to get signed events.
      </p>
    );
  }
  return (
    <table class="stack">
      <caption class="visually-hidden">Receivers, those that need attention first</caption>
      <thead>
        <tr>
          <th scope="col">Receiver</th>
          <th scope="col">Health</th>
          <th scope="col">Last delivery</th>
        </tr>
      </thead>
      <tbody>
        {props.receivers.map((r) => (
          <tr>
            <td>
              <a href={`${props.base}/receivers/${r.id}`}>{r.label}</a>
            </td>
            <td data-label="Health">
              <ReceiverHealthText receiver={r} />
            </td>
            <td data-label="Last delivery" class="when">
              <UtcTime at={r.last_delivery_at} otherwise="never" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The newest failed attempts across receivers, each linked to its delivery's page. */
export function FailuresPanel(props: { base: string; failures: Failure[] }) {
  if (props.failures.length === 0) return <p>No delivery is failing or waiting after a failure.</p>;
  return (
    <table class="stack">
      <caption class="visually-hidden">The newest failures, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Delivery</th>
          <th scope="col">Receiver</th>
          <th scope="col">State</th>
          <th scope="col">Last attempt</th>
        </tr>
      </thead>
      <tbody>
        {props.failures.map(({ delivery: d, receiverLabel }) => {
          const last = d.attempts.at(-1);
          return (
            <tr>
              <td>
                <a href={`${props.base}/receivers/${d.receiver_id}/deliveries/${d.id}`}>
                  {EVENT_TYPES.fromProto(d.event_type) ?? 'event'}
                </a>{' '}
                <code class="hint token">{d.event_id}</code>
              </td>
              <td data-label="Receiver">{receiverLabel}</td>
              <td data-label="State">
                <DeliveryStatusText delivery={d} />
              </td>
              <td data-label="Last attempt">
                {last ? `${formatTimeToSecond(last.started_at)}: ${attemptOutcome(last)}` : '—'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Pending plans against the limit, the newest few with the day they are to be reviewed. */
export function PlansPanel(props: {
  base: string;
  pendingCount: number;
  pendingLimit: number;
  newest: Plan[];
}) {
  return (
    <>
      <p>
        <strong>
          {props.pendingCount} of {props.pendingLimit}
        </strong>{' '}
        pending plans wait for a person at the brand to review them in the workspace.
      </p>
      {props.newest.length > 0 && (
        <ul class="plain">
          {props.newest.map((p) => (
            <li>
              {p.title}{' '}
              <span class="hint">
                ({CAMPAIGN_TYPES.fromProto(p.campaign_type) ?? 'plan'}, review on {p.review_on})
              </span>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href={`${props.base}/plans`}>All plans</a>
      </p>
    </>
  );
}

/** Keys that stop working within days: a roll's overlap ending, or an expiry given at creation. */
export function ExpiringKeysPanel(props: { base: string; keys: ApiKey[]; now: number }) {
  return (
    <>
      {props.keys.length === 0 ? (
        <p>No key expires in the next 7 days.</p>
      ) : (
        <ul class="plain">
          {props.keys.map((k) => (
            <li>
              {k.name} <code class="token">{k.prefix}…</code>:{' '}
              <strong>
                expires in {formatRemaining(Date.parse(k.expires_at ?? '') - props.now)}
              </strong>{' '}
              <span class="hint">({formatTime(k.expires_at ?? '')})</span>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href={`${props.base}/keys`}>All keys</a>
      </p>
    </>
  );
}
