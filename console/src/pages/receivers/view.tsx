import type { Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { OnceField } from '../../forms/onceField';
import { joinSet, shownName } from '../../forms/shownFields';
import { Csrf, Layout, Notice, type Viewer } from '../../views/layout';
import { attentionOf, ReceiverHealthText, waitingWords } from './receiverHealthText';
import { SecretRevealPage, type RevealedSecret, type SecretRevealWords } from './secretReveal';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { refusalAttrs, refusalGroupAttrs, type NamedField } from '../../views/refusal';

export interface ReceiverFormValues {
  url?: string;
  label?: string;
  events?: string[];
  /**
   * The edit form's: the receiver as the page showed it, posted back hidden so a save sends only
   * what the person changed (forms/shownFields.ts).
   */
  shown?: { url: string; label: string; events: string[] };
  /** The fields a refused save named: someone else changed them too (409, views/refusal.tsx). */
  conflicts?: readonly string[];
}

/** The edit form's fields as a refusal names and links them. */
export const RECEIVER_EDIT_FIELDS: Readonly<Record<string, NamedField>> = {
  url: { id: 'edit-url', label: 'URL' },
  label: { id: 'edit-label', label: 'Label' },
  events: { id: 'edit-events', label: 'Events to send' },
};

const eventNames = (r: Receiver) =>
  r.events.map((e) => EVENT_TYPES.fromProto(e) ?? 'unknown').join(', ');

export function ReceiversPage(props: {
  viewer: Viewer;
  receivers: Receiver[];
  canManage: boolean;
  /** The add form's one-time token: a repeat of the form adds no second receiver. */
  onceToken?: string;
  error?: string;
  notice?: string;
  form?: ReceiverFormValues;
}) {
  const { viewer } = props;
  return (
    <Layout title="Receivers" viewer={viewer} section="receivers">
      <h1>Event receivers</h1>
      <p>
        HTTPS endpoints of your brand that receive signed events (submission.approved,
        submission.rejected, payout.paid, campaign.settled). Receivers are shared by the whole
        brand.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {!props.canManage && (
        <Notice>
          Only brand owners add, change, test and remove receivers. You are a {viewer.role} of this
          brand: you can see receivers and their deliveries.
        </Notice>
      )}
      <DataTable
        label="Receivers"
        caption="Receivers, newest first"
        columns={['Label', 'URL', 'Events', 'State', 'Last status', 'Last delivery', 'Health']}
      >
        {props.receivers.length === 0 && (
          <tr>
            <td colSpan={7}>No receivers yet.</td>
          </tr>
        )}
        {props.receivers.map((r) => (
          <tr class={attentionOf(r) ? 'failing' : undefined}>
            <td>
              <a href={`/brands/${viewer.brandId}/receivers/${r.id}`}>{r.label}</a>
            </td>
            <td>
              <code>{r.url}</code>
            </td>
            <td>{eventNames(r)}</td>
            <td>
              {r.enabled
                ? 'enabled'
                : `disabled${r.disabled_reason ? `: ${r.disabled_reason}` : ''}`}
              {r.rotation && (
                <>
                  <br />
                  <span class="hint">
                    {r.rotation.switch_at
                      ? `secret switch at ${formatTime(r.rotation.switch_at)}`
                      : 'secret rotation pending'}
                  </span>
                </>
              )}
            </td>
            <td>{r.last_status ? `HTTP ${r.last_status}` : '—'}</td>
            <td>
              <UtcTime at={r.last_delivery_at} otherwise="never" />
            </td>
            <td>
              <ReceiverHealthText receiver={r} />
            </td>
          </tr>
        ))}
      </DataTable>
      {props.canManage && (
        <section aria-labelledby="add-receiver">
          <h2 id="add-receiver">Add a receiver</h2>
          <ReceiverFields
            viewer={viewer}
            action={`/brands/${viewer.brandId}/receivers`}
            values={props.form}
            submit="Add receiver"
            onceToken={props.onceToken}
          />
        </section>
      )}
    </Layout>
  );
}

/** The add and edit form: URL, label, events. */
export function ReceiverFields(props: {
  viewer: Viewer;
  action: string;
  values?: ReceiverFormValues;
  submit: string;
  /** Only the add form's (forms/submitOnce.ts); an edit is the same whenever repeated. */
  onceToken?: string;
}) {
  const selected = new Set(props.values?.events ?? []);
  const idPrefix = props.submit.startsWith('Add') ? 'add' : 'edit';
  const named = (field: string): boolean => props.values?.conflicts?.includes(field) ?? false;
  return (
    <form class="stack" method="post" action={props.action}>
      <Csrf token={props.viewer.csrfToken} />
      {props.onceToken && <OnceField token={props.onceToken} />}
      {props.values?.shown && (
        <>
          <input type="hidden" name={shownName('url')} value={props.values.shown.url} />
          <input type="hidden" name={shownName('label')} value={props.values.shown.label} />
          <input
            type="hidden"
            name={shownName('events')}
            value={joinSet(props.values.shown.events)}
          />
        </>
      )}
      <label for={`${idPrefix}-url`}>URL</label>
      <input
        id={`${idPrefix}-url`}
        name="url"
        type="url"
        required
        maxLength={2048}
        placeholder="https://hooks.your-brand.example/brand-records"
        value={props.values?.url ?? ''}
        {...refusalAttrs(named('url'), `${idPrefix}-url-hint`)}
      />
      <span id={`${idPrefix}-url-hint`} class="hint">
        Public HTTPS only. Team-chat incoming-webhook URLs are refused: run a relay (see the guide
        on each receiver's page).
      </span>
      <label for={`${idPrefix}-label`}>Label</label>
      <input
        id={`${idPrefix}-label`}
        name="label"
        type="text"
        required
        maxLength={100}
        value={props.values?.label ?? ''}
        {...refusalAttrs(named('label'))}
      />
      <fieldset id={`${idPrefix}-events`} {...refusalGroupAttrs(named('events'))}>
        <legend>Events to send</legend>
        {EVENT_TYPES.names.map((name) => (
          <label>
            <input type="checkbox" name="events" value={name} checked={selected.has(name)} /> {name}
            <br />
          </label>
        ))}
      </fieldset>
      <div>
        <button type="submit">{props.submit}</button>
      </div>
    </form>
  );
}

/** The signing secret, shown once (the same one-time reveal as a new key). */
export function SecretCreatedPage(props: {
  viewer: Viewer;
  receiverId: string;
  created?: RevealedSecret;
}) {
  return SecretRevealPage({ ...props, words: CREATED_WORDS });
}

const CREATED_WORDS: SecretRevealWords = {
  title: 'Signing secret',
  heading: (label) => `Receiver “${label}” added`,
  copyLabel: 'Copy secret',
  warning:
    'This is the only time its signing secret is shown. Store it where the receiver reads its configuration: reloading this page will not show it again.',
  next: (
    <>
      The receiver verifies every delivery with it (HMAC-SHA256 over <code>timestamp.body</code>).
      Keep it server-side, never in browser code, repositories, screenshots or support messages.
    </>
  ),
  gone: 'A signing secret is shown exactly once. If you did not store it, rotate it on the receiver’s page: a new secret is shown once, and the current one keeps signing until you switch.',
  backLink: { label: 'Go to the receiver: Test it', under: '/testing' },
};

export function RemoveReceiverPage(props: { viewer: Viewer; receiver: Receiver }) {
  const { viewer, receiver } = props;
  const base = `/brands/${viewer.brandId}/receivers/${receiver.id}`;
  return (
    <Layout title="Remove receiver" viewer={viewer} section="receivers">
      <h1>Remove “{receiver.label}”?</h1>
      <p>
        <code>{receiver.url}</code> stops receiving events, and its delivery history is deleted.
        This cannot be undone. To pause deliveries instead, disable it.
      </p>
      <PostButton
        action={`${base}/remove`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={`${base}/settings`}
      >
        Remove this receiver
      </PostButton>
    </Layout>
  );
}

/**
 * The confirmation before an owner disables a receiver, saying what happens to what waits
 * (webhooks' updateReceiver fails every pending delivery: visibly failed, never lost) and to
 * events meanwhile (none is queued for a disabled receiver).
 */
export function DisableReceiverPage(props: { viewer: Viewer; receiver: Receiver }) {
  const { viewer, receiver: r } = props;
  const base = `/brands/${viewer.brandId}/receivers/${r.id}`;
  return (
    <Layout title="Disable receiver" viewer={viewer} section="receivers">
      <h1>Disable “{r.label}”?</h1>
      <p>
        <code>{r.url}</code> gets no deliveries while it is disabled.
      </p>
      <ul>
        <li>
          {r.waiting > 0 ? (
            <>
              <strong>{waitingWords(r)}</strong>: they fail now (due now or waiting for a retry).
            </>
          ) : (
            'Nothing of it waits now. Any delivery still waiting when you confirm fails at once.'
          )}{' '}
          Failed deliveries stay in its log; after you enable it again, Recovery sends them (up to
          14 days back).
        </li>
        <li>
          Events that happen while it is disabled are not queued for it, and are not sent to it
          later: the Events page and the API's events feed still list them.
        </li>
        <li>Enabling it again clears its failure count; its signing secret stays as it is.</li>
      </ul>
      <PostButton
        action={`${base}/disable`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={`${base}/settings`}
      >
        Disable this receiver
      </PostButton>
    </Layout>
  );
}
