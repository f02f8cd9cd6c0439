import type { Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { Csrf, type Viewer } from '../../../views/layout';
import { ReceiverGuide } from '../guide';
import { OwnersOnly } from '../../../views/ownersOnly';
import type { ReceiverRights } from '../receiverPage';

/** The testing tab: a test delivery of one of its event types, and the guide to verify them. */
export function TestingTab(props: { viewer: Viewer; receiver: Receiver; rights: ReceiverRights }) {
  const { viewer, receiver: r } = props;
  const events = r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  return (
    <>
      <section aria-labelledby="test">
        <h2 id="test">Send a test delivery</h2>
        <p class="hint">
          Queues one delivery marked <code>"test": true</code> with sample data. It creates no
          business event and never counts as a failure, and queued is not delivered: its page shows
          the outcome as it happens. At most ten tests wait at once: each is attempted once, and
          more can be sent as they get their outcomes.
        </p>
        {!props.rights.canTest ? (
          <OwnersOnly viewer={viewer} what="send test deliveries" />
        ) : !r.enabled ? (
          <p>This receiver is disabled: enable it in its settings first.</p>
        ) : (
          <form
            class="actions"
            method="post"
            action={`/brands/${viewer.brandId}/receivers/${r.id}/test`}
          >
            <Csrf token={viewer.csrfToken} />
            <label for="test-event">Event type</label>
            <select id="test-event" name="event_type">
              {events.map((e) => (
                <option value={e}>{e}</option>
              ))}
            </select>
            <button type="submit">Test</button>
          </form>
        )}
      </section>
      <ReceiverGuide receiver={r} />
    </>
  );
}
