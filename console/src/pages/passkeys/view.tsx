import type { Passkey } from '@brand/proto/access/v1/passkeys';
import { SIMPLEWEBAUTHN_SCRIPT } from '../../http/vendorScripts';
import { formatTime } from '../../views/format';
import { Csrf, Layout, Notice } from '../../views/layout';

/** The scripts of a page with a passkey ceremony: the library, then ours. */
export const PASSKEY_SCRIPTS = [SIMPLEWEBAUTHN_SCRIPT, '/static/passkey.js'];

export function PasskeysPage(props: {
  email: string;
  csrfToken: string;
  passkeys: Passkey[];
  notice?: string;
  error?: string;
  name?: string;
}) {
  return (
    <Layout title="Your passkeys" scripts={PASSKEY_SCRIPTS}>
      <p>
        <a href="/brands">Back to your brands</a> · <a href="/sessions">Your sessions</a>
      </p>
      <h1>Your passkeys</h1>
      <p>
        A passkey signs <strong>{props.email}</strong> in with this device's screen lock or a
        security key, instead of an emailed link. The private key stays on the device; we keep only
        its public key.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {props.passkeys.length === 0 ? (
        <p>You have no passkey yet.</p>
      ) : (
        <table>
          <caption class="hint">Passkeys of {props.email}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.passkeys.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{formatTime(p.created_at)}</td>
                <td>
                  {p.last_used_at ? formatTime(p.last_used_at) : <span class="hint">Never</span>}
                </td>
                <td>
                  <form method="post" action={`/passkeys/${p.id}/remove`}>
                    <Csrf token={props.csrfToken} />
                    <button
                      type="submit"
                      class="danger"
                      aria-label={`Remove the passkey ${p.name}`}
                    >
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
        <p class="hint">
          Signed in with an emailed link, you can add your first passkey only; to add more, sign in
          with one you have.
        </p>
      </section>
    </Layout>
  );
}
