import type { Passkey } from '@brand/proto/access/v1/passkeys';
import { SIMPLEWEBAUTHN_SCRIPT } from '../../http/vendorScripts';
import { UtcTime } from '../../views/utcTime';
import { Csrf, Layout, Notice } from '../../views/layout';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';

/** The scripts of a page with a passkey ceremony: the library, then ours. */
export const PASSKEY_SCRIPTS = [SIMPLEWEBAUTHN_SCRIPT, '/static/passkey.js'];

/** How the session was opened, as the page tells it. */
export interface SignedInBy {
  /** "link", "passkey" or "sso" (records' words). */
  method: string;
  /** The brand whose single sign-on opened the session. */
  ssoBrandName?: string;
}

export function PasskeysPage(props: {
  email: string;
  csrfToken: string;
  passkeys: Passkey[];
  signedInBy: SignedInBy;
  notice?: string;
  error?: string;
  name?: string;
}) {
  if (props.signedInBy.method === 'sso') return SsoSessionPasskeysPage(props);
  const byLink = props.signedInBy.method === 'link';
  // A link session may add the first passkey only and remove none: the mailbox alone must not
  // swap a member's passkey for another (records refuses it too, passkey_session_required).
  const mayChange = !byLink || props.passkeys.length === 0;
  return (
    <Layout
      title="Your passkeys"
      scripts={PASSKEY_SCRIPTS}
      person={{ email: props.email, csrfToken: props.csrfToken }}
    >
      <h1>Your passkeys</h1>
      <p>
        A passkey signs <strong>{props.email}</strong> in with this device's screen lock or a
        security key, instead of an emailed link. The private key stays on the device; we keep only
        its public key.
      </p>
      <p>
        This session was opened by {byLink ? 'an emailed link' : 'a passkey'}.
        {byLink &&
          ' Signed in that way, you can add your first passkey only; to add more or remove one, sign in with one you have.'}
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {props.passkeys.length === 0 ? (
        <p>You have no passkey yet.</p>
      ) : (
        <DataTable
          label="Passkeys"
          caption={<>Passkeys of {props.email}</>}
          columns={
            mayChange ? ['Name', 'Added', 'Last used', 'Actions'] : ['Name', 'Added', 'Last used']
          }
        >
          {props.passkeys.map((p) => (
            <tr>
              <td>{p.name}</td>
              <td>
                <UtcTime at={p.created_at} />
              </td>
              <td>
                <UtcTime at={p.last_used_at} otherwise="Never" />
              </td>
              {mayChange && (
                <td>
                  <PostButton
                    action={`/passkeys/${p.id}/remove`}
                    csrfToken={props.csrfToken}
                    kind="danger"
                    label={`Remove the passkey ${p.name}`}
                  >
                    Remove
                  </PostButton>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {mayChange ? (
        <AddPasskeySection csrfToken={props.csrfToken} name={props.name} />
      ) : (
        <p>
          Lost every device that holds your passkey? Ask the service's operator to remove your
          passkeys; then add a new one here.
        </p>
      )}
    </Layout>
  );
}

/** The form that adds a passkey (static/passkey.js runs the ceremony and fills `response`). */
function AddPasskeySection(props: { csrfToken: string; name?: string }) {
  return (
    <section aria-labelledby="add-passkey-heading">
      <h2 id="add-passkey-heading">Add a passkey</h2>
      <p class="hint" data-passkey-unsupported>
        Adding a passkey needs JavaScript and a browser that supports passkeys.
      </p>
      <form
        class="stack"
        method="post"
        action="/passkeys"
        data-passkey="register"
        data-passkey-options="/passkeys/options"
        data-passkey-status="passkey-status"
        hidden
      >
        <Csrf token={props.csrfToken} />
        <label for="passkey-name">Name</label>
        <input
          id="passkey-name"
          name="name"
          required
          maxLength={60}
          value={props.name ?? ''}
          aria-describedby="passkey-name-hint"
        />
        <span id="passkey-name-hint" class="hint">
          So you recognise it later, e.g. “Work laptop”.
        </span>
        <input type="hidden" name="response" value="" />
        <div>
          <button type="submit">Add a passkey</button>
        </div>
      </form>
      <p id="passkey-status" class="hint" role="status"></p>
    </section>
  );
}

/**
 * "Your passkeys" for a session opened by a brand's single sign-on: that provider speaks for its
 * brand only, and a passkey opens every brand of the address, so nothing of them is shown or
 * changed from here; the page says so and how to manage them.
 */
function SsoSessionPasskeysPage(props: {
  email: string;
  csrfToken: string;
  signedInBy: SignedInBy;
  error?: string;
}) {
  const brand = props.signedInBy.ssoBrandName ?? 'your brand';
  return (
    <Layout title="Your passkeys" person={{ email: props.email, csrfToken: props.csrfToken }}>
      <h1>Your passkeys</h1>
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <p>
        You signed in with <strong>{brand}</strong>’s single sign-on. Its identity provider speaks
        for {brand} only, while a passkey signs <strong>{props.email}</strong> in to every brand you
        belong to: so from this session you cannot see, add or remove passkeys.
      </p>
      <p>
        To manage your passkeys, sign out (at the top of the page) and sign in with an emailed link
        or a passkey you have.
      </p>
    </Layout>
  );
}
