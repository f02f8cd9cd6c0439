import type { Receiver, SecretRotation } from '@brand/proto/webhooks/v1';
import { formatTime, formatTimeToSecond } from '../../views/format';
import { Csrf, type Viewer } from '../../views/layout';
import { toUtcText } from '../../views/utcTimeInput';
import { ONCE_FIELD } from '../../forms/submitOnce';
import { deliveryStatusName } from './deliveryStatus';
import { SecretRevealPage, type RevealedSecret, type SecretRevealWords } from './secretReveal';
import { PostButton } from '../../views/postButton';

/**
 * The receiver's signing secret and its rotation. The contract's signature header carries one
 * digest, so the overlap is on the receiver's side: rotating makes a new secret (shown once)
 * while deliveries stay signed with the current one; the receiver holds both, a Test signed
 * with the new one shows it is ready, and the switch (now or at a chosen time) makes every
 * delivery, retries of older events included, use the new secret and destroys the old one.
 */
export function RotationPanel(props: {
  viewer: Viewer;
  receiver: Receiver;
  events: string[];
  /** Start and cancel a rotation, and Test with its new secret (receivers.rotate). */
  canRotate: boolean;
  /** Switch now or at a time (receivers.switch). */
  canSwitch: boolean;
  now: Date;
  /** The rotate form's one-time token: a double click rotates once, and shows that secret. */
  onceToken: string;
}) {
  const { viewer, receiver: r } = props;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  const rotation = r.rotation;
  const testPending =
    !!rotation?.test_delivery_id && deliveryStatusName(rotation.test_status) === 'pending';
  return (
    <section aria-labelledby="rotation" data-poll={testPending ? 'pending' : 'done'}>
      <h2 id="rotation">Signing secret</h2>
      {!rotation ? (
        <>
          <p>
            Every delivery is signed with this receiver's secret, shown once when it was added. To
            replace it without losing a delivery: rotate (a new secret is shown once, and deliveries
            stay signed with the current one), let your receiver accept both, send a Test signed
            with the new one, then switch, now or at a time you choose. After the switch every
            delivery, retries of older events included, is signed with the new secret and the old
            one is destroyed.
          </p>
          {props.canRotate && (
            <PostButton
              action={`${base}/rotate`}
              csrfToken={viewer.csrfToken}
              kind="secondary"
              fields={{ [ONCE_FIELD]: props.onceToken }}
            >
              Rotate the signing secret
            </PostButton>
          )}
        </>
      ) : (
        <>
          <p>
            A rotation is pending: a new secret was made {formatTime(rotation.created_at)}
            {rotation.created_by ? ` by ${rotation.created_by}` : ''}. Deliveries are still signed
            with the current secret.{' '}
            {rotation.switch_at ? (
              <strong>The switch is scheduled for {formatTimeToSecond(rotation.switch_at)}.</strong>
            ) : (
              'No switch is scheduled yet.'
            )}
          </p>
          <h3>1. Let your receiver accept both secrets</h3>
          <p class="hint">
            Until the switch, configure your receiver with the current and the new secret (the guide
            below shows how); a delivery is genuine when either signature matches.
          </p>
          <h3>2. Test with the new secret</h3>
          <RotationTestStatus viewer={viewer} receiverId={r.id} rotation={rotation} />
          {props.canRotate && (
            <form class="actions" method="post" action={`${base}/test`}>
              <Csrf token={viewer.csrfToken} />
              <input type="hidden" name="with_new_secret" value="1" />
              <label for="rotation-test-event">Event type</label>
              <select id="rotation-test-event" name="event_type">
                {props.events.map((e) => (
                  <option value={e}>{e}</option>
                ))}
              </select>
              <button type="submit" class="secondary">
                Test with the new secret
              </button>
            </form>
          )}
          <h3>3. Switch</h3>
          {props.canSwitch ? (
            <SwitchForm viewer={viewer} base={base} rotation={rotation} now={props.now} />
          ) : (
            <p class="hint">An owner switches the rotation, or cancels it.</p>
          )}
          {props.canRotate && <CancelRotationForm viewer={viewer} base={base} />}
        </>
      )}
    </section>
  );
}

/** How the latest Test signed with the new secret went; refreshed by poll.js while pending. */
function RotationTestStatus(props: {
  viewer: Viewer;
  receiverId: string;
  rotation: SecretRotation;
}) {
  const { rotation } = props;
  const link = `/brands/${props.viewer.brandId}/receivers/${props.receiverId}/deliveries/${rotation.test_delivery_id}`;
  const state = rotation.test_delivery_id ? deliveryStatusName(rotation.test_status) : undefined;
  return (
    <div id="rotation-test" data-refresh aria-live="polite">
      {state === undefined && (
        <p>
          Not tested yet: switching before your receiver accepts the new secret fails deliveries.
        </p>
      )}
      {state === 'pending' && (
        <p>
          <span class="status-pending">Sent, waiting for the receiver's answer.</span>{' '}
          <a href={link}>See the test delivery</a>
        </p>
      )}
      {state === 'succeeded' && (
        <p>
          <span class="status-succeeded">Accepted: your receiver verified the new secret.</span>{' '}
          <a href={link}>See the test delivery</a>
        </p>
      )}
      {state === 'failed' && (
        <p>
          <span class="status-failed">
            Not accepted
            {rotation.test_last_error
              ? `: ${rotation.test_last_error}`
              : rotation.test_last_status
                ? `: the receiver answered ${rotation.test_last_status}`
                : ''}
            .
          </span>{' '}
          Does your receiver hold the new secret? <a href={link}>See what it answered</a>
        </p>
      )}
    </div>
  );
}

/**
 * The switch choice the form starts on (issue 35: it had none). Now, once the receiver has
 * accepted a Test signed with the new secret; until then in 24 hours, which leaves a day to
 * deploy the new secret, since switching before the receiver holds it fails deliveries.
 */
function defaultSwitchChoice(rotation: SecretRotation): 'now' | '24h' {
  const tested =
    rotation.test_delivery_id !== '' && deliveryStatusName(rotation.test_status) === 'succeeded';
  return tested ? 'now' : '24h';
}

function SwitchForm(props: { viewer: Viewer; base: string; rotation: SecretRotation; now: Date }) {
  const { viewer, base } = props;
  const choice = defaultSwitchChoice(props.rotation);
  // an example in the form the field reads: a whole hour, a day ahead
  const hour = 3_600_000;
  const example = toUtcText(new Date((Math.floor(props.now.getTime() / hour) + 24) * hour));
  return (
    <>
      <form class="stack" method="post" action={`${base}/switch-secret`}>
        <Csrf token={viewer.csrfToken} />
        <fieldset>
          <legend>When should the new secret start signing?</legend>
          <label>
            <input type="radio" name="when" value="now" required checked={choice === 'now'} /> Now
          </label>
          <br />
          <label>
            <input type="radio" name="when" value="1h" /> In 1 hour
          </label>
          <br />
          <label>
            <input type="radio" name="when" value="24h" checked={choice === '24h'} /> In 24 hours
          </label>
          <br />
          <label>
            <input type="radio" name="when" value="at" /> At this time (UTC):
          </label>{' '}
          {/* typed like every other time field (views/utcTimeInput.tsx), not datetime-local */}
          <input
            id="switch-at"
            type="text"
            name="at"
            aria-label="Switch at (UTC)"
            aria-describedby="switch-at-hint"
            placeholder="YYYY-MM-DD HH:MM"
            title={`A UTC time such as ${example}`}
            size={16}
            maxLength={40}
            spellcheck={false}
            autocomplete="off"
          />
        </fieldset>
        <span id="switch-at-hint" class="hint">
          A time in UTC, such as {example}, at most 7 days ahead. After the switch the old secret is
          destroyed: a receiver that holds only the old one refuses every delivery.
        </span>
        <div>
          <button type="submit">
            {props.rotation.switch_at ? 'Reschedule the switch' : 'Switch'}
          </button>
        </div>
      </form>
    </>
  );
}

function CancelRotationForm(props: { viewer: Viewer; base: string }) {
  return (
    <form method="post" action={`${props.base}/cancel-rotation`}>
      <Csrf token={props.viewer.csrfToken} />
      <p class="actions">
        <button type="submit" class="danger">
          Cancel the rotation
        </button>
        <span class="hint">The new secret is discarded; the current one keeps signing.</span>
      </p>
    </form>
  );
}

/** The new secret of a rotation, shown once (the same one-time reveal as a new receiver's). */
export function RotatedSecretPage(props: {
  viewer: Viewer;
  receiverId: string;
  created?: RevealedSecret;
}) {
  return SecretRevealPage({ ...props, words: ROTATED_WORDS });
}

const ROTATED_WORDS: SecretRevealWords = {
  title: 'New signing secret',
  heading: (label) => `New signing secret for “${label}”`,
  copyLabel: 'Copy new secret',
  warning:
    'This is the only time the new secret is shown. Add it to your receiver beside the current one: deliveries stay signed with the current secret until you switch.',
  next: "Next, on the receiver's page: send a Test signed with the new secret, and once your receiver accepts it, switch now or at a time you choose. Keep the secret server-side, never in browser code, repositories, screenshots or support messages.",
  gone: "A signing secret is shown exactly once. If you did not store the new one, cancel the rotation on the receiver's page and rotate again.",
  backLink: {
    label: 'Go to the receiver: test the new secret, then switch',
    under: '/settings#rotation',
  },
};
