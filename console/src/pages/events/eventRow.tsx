import type { Delivery, EventOutcome } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { UtcTime } from '../../views/utcTime';
import type { Viewer } from '../../views/layout';
import { attemptOutcome } from '../receivers/attemptWords';
import { deliveryStatusName, DeliveryStatusText } from '../receivers/deliveryStatus';
import { attemptsWords, DeliveryActions } from '../receivers/deliveryView';
import { PostButton } from '../../views/postButton';

/** The record an event is about: its resource, id and state, from the event's object JSON. */
function recordOf(objectJson: string): { resource: string; id: string; status: string } {
  try {
    const o = JSON.parse(objectJson) as { resource?: unknown; id?: unknown; status?: unknown };
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return { resource: text(o.resource), id: text(o.id), status: text(o.status) };
  } catch {
    return { resource: '', id: '', status: '' };
  }
}

/** The deliveries of one event by what became of them: delivered, waiting, failed. */
function outcomeCounts(
  deliveries: Delivery[],
): Record<'delivered' | 'waiting' | 'failed', Delivery[]> {
  const of = (state: string) => deliveries.filter((d) => deliveryStatusName(d.status) === state);
  return { delivered: of('succeeded'), waiting: of('pending'), failed: of('failed') };
}

/** "2 delivered · 1 failed", each part in its state's colour (and words, not colour alone). */
function OutcomeSummary(props: { deliveries: Delivery[] }) {
  const counts = outcomeCounts(props.deliveries);
  const parts = (
    [
      ['delivered', 'succeeded'],
      ['waiting', 'pending'],
      ['failed', 'failed'],
    ] as const
  ).filter(([name]) => counts[name].length > 0);
  return (
    <>
      {parts.map(([name, css], i) => (
        <>
          {i > 0 && ' · '}
          <span class={`status-${css}`}>
            {counts[name].length} {name}
          </span>
        </>
      ))}
    </>
  );
}

/** ", the receiver answered 500": the last attempt's outcome, when there was one. */
function lastAnswer(d: Delivery): string {
  const last = d.attempts.at(-1);
  return last ? `, ${attemptOutcome(last)}` : '';
}

/** Who may act on an event's deliveries from its row. */
export interface EventRights {
  canResend: boolean;
  canRetry: boolean;
}

/**
 * One event on one line (issue 62): its type, the record it is about (a link to every event of
 * that record), when, and what became of it; the line opens (a <details>, no script) on each
 * receiver's delivery, with Retry now or Resend, and the same for all of them at once.
 */
export function EventRow(props: {
  base: string;
  event: EventOutcome;
  viewer: Viewer;
  rights: EventRights;
}) {
  const { base, event, rights } = props;
  const type = EVENT_TYPES.fromProto(event.event_type) ?? 'unknown';
  const record = recordOf(event.object_json);
  const counts = outcomeCounts(event.deliveries);
  const retryable = counts.waiting.filter((d) => d.attempt_count > 0);
  return (
    <tr id={`ev-${event.event_id}`}>
      <td>
        <code>{type}</code>
      </td>
      <td data-label="Record">
        {record.id ? (
          <>
            <a
              href={`${base}/events?find=${encodeURIComponent(record.id)}`}
              title="Every event of this record"
            >
              <code class="token">{record.id}</code>
            </a>{' '}
            <span class="hint">{record.status}</span>
          </>
        ) : (
          '—'
        )}
      </td>
      <td data-label="Time" class="when">
        <UtcTime at={event.created_at} toSecond />
      </td>
      <td data-label="Deliveries">
        <details>
          <summary>
            {event.deliveries.length === 0 ? (
              <span class="hint">none selected</span>
            ) : (
              <OutcomeSummary deliveries={event.deliveries} />
            )}
          </summary>
          <p class="hint">
            Event <code class="token">{event.event_id}</code>
            {record.resource && ` about ${record.resource} ${record.id}`}.
          </p>
          {event.deliveries.length === 0 ? (
            <p>No receiver had selected {type} when it happened.</p>
          ) : (
            <ul class="plain deliveries">
              {event.deliveries.map((d) => (
                <li>
                  <a href={`${base}/receivers/${d.receiver_id}`}>
                    {event.receiver_labels[d.receiver_id] ?? d.receiver_id}
                  </a>
                  : <DeliveryStatusText delivery={d} />, {attemptsWords(d)} attempts
                  {lastAnswer(d)}.{' '}
                  <span class="row-actions">
                    <a href={`${base}/receivers/${d.receiver_id}/deliveries/${d.id}`}>Details</a>
                    <DeliveryActions
                      viewer={props.viewer}
                      delivery={d}
                      rights={{
                        canResend: rights.canResend,
                        canRetry: rights.canRetry,
                        // a waiting delivery's receiver is enabled: disabling fails what waits
                        receiverEnabled: true,
                      }}
                    />
                  </span>
                </li>
              ))}
            </ul>
          )}
          <div class="actions">
            {rights.canRetry && retryable.length > 0 && (
              <PostButton
                action={`${base}/events/${event.event_id}/retry-waiting`}
                csrfToken={props.viewer.csrfToken}
                kind="secondary"
              >
                Retry the {retryable.length} waiting now
              </PostButton>
            )}
            {rights.canResend && counts.failed.length > 0 && (
              <PostButton
                action={`${base}/events/${event.event_id}/resend-failed`}
                csrfToken={props.viewer.csrfToken}
                kind="secondary"
              >
                Resend to the {counts.failed.length}{' '}
                {counts.failed.length === 1 ? 'receiver' : 'receivers'} that failed
              </PostButton>
            )}
          </div>
        </details>
      </td>
    </tr>
  );
}
