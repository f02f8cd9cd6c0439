import type { Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { Viewer } from '../../../views/layout';
import { OwnersOnly } from '../../../views/ownersOnly';
import { receiverTabPath, type ReceiverRights } from '../receiverPage';
import { RotationGuide } from '../rotationGuide';
import { RotationPanel } from '../rotationView';
import { ReceiverFields, type ReceiverFormValues } from '../view';
import { PostButton } from '../../../views/postButton';

/**
 * The settings tab: the signing secret and its rotation (with the guide to accepting both
 * secrets, open while a rotation is pending), the receiver's URL, label and events, and pausing
 * or removing it (each behind a page that says what happens).
 */
export function SettingsTab(props: {
  viewer: Viewer;
  receiver: Receiver;
  rights: ReceiverRights;
  now: Date;
  form?: ReceiverFormValues;
  /** The rotate form's one-time token (forms/submitOnce.ts). */
  onceToken: string;
}) {
  const { viewer, receiver: r, rights } = props;
  const base = receiverTabPath(viewer.brandId, r.id, 'overview');
  const events = r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown');
  return (
    <>
      {!rights.canManage && (
        <OwnersOnly viewer={viewer} what="change, rotate, disable and remove receivers" />
      )}
      <RotationPanel
        viewer={viewer}
        receiver={r}
        events={events}
        canRotate={rights.canRotate}
        canSwitch={rights.canSwitch}
        now={props.now}
        onceToken={props.onceToken}
      />
      <details class="guide" open={!!r.rotation}>
        <summary>How your receiver accepts both secrets during a rotation</summary>
        <RotationGuide receiver={r} />
      </details>
      {rights.canManage && (
        <>
          <section aria-labelledby="edit">
            <h2 id="edit">URL, label and events</h2>
            <ReceiverFields
              viewer={viewer}
              action={`${base}/edit`}
              values={
                props.form ?? {
                  url: r.url,
                  label: r.label,
                  events,
                  shown: { url: r.url, label: r.label, events },
                }
              }
              submit="Save changes"
            />
          </section>
          <section aria-labelledby="pause">
            <h2 id="pause">Disable or remove</h2>
            <div class="actions">
              {r.enabled ? (
                <a class="button secondary" href={`${base}/disable`}>
                  Disable…
                </a>
              ) : (
                <PostButton action={`${base}/enable`} csrfToken={viewer.csrfToken}>
                  Enable
                </PostButton>
              )}
              <a href={`${base}/remove`}>Remove…</a>
            </div>
            <p class="hint">
              A disabled receiver gets no deliveries; enabling it clears its failure count, and
              Recovery then sends what failed meanwhile.
            </p>
          </section>
        </>
      )}
    </>
  );
}
