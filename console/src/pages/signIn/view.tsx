import { Layout, Notice } from '../../views/layout';
import { PASSKEY_SCRIPTS } from '../passkeys/view';
import { SsoStartForm } from './ssoSignInView';

export function SignInPage(props: { email?: string; error?: string; notice?: string }) {
  return (
    <Layout title="Sign in" scripts={PASSKEY_SCRIPTS}>
      <h1>Sign in to the Developers area</h1>
      <p>
        Enter the email address you use at your brand. We email you a link that signs you in; no
        password needed.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <form class="stack" method="post" action="/sign-in">
        <label for="email">Email address</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          maxLength={254}
          value={props.email ?? ''}
          aria-describedby={props.error ? undefined : 'email-hint'}
        />
        <span id="email-hint" class="hint">
          Only members of a verified brand on the Plus tier or above can sign in.
        </span>
        <div>
          <button type="submit">Email me a sign-in link</button>
        </div>
      </form>
      <section aria-labelledby="passkey-heading">
        <h2 id="passkey-heading">Or use a passkey</h2>
        <p class="hint">
          Added a passkey on “Your passkeys”? Sign in with this device's screen lock or your
          security key. Some brands require it.
        </p>
        <form
          method="post"
          action="/sign-in/passkey"
          data-passkey="sign-in"
          data-passkey-options="/sign-in/passkey/options"
          data-passkey-status="passkey-status"
          hidden
        >
          <input type="hidden" name="response" value="" />
          <button type="submit" class="secondary">
            Sign in with a passkey
          </button>
        </form>
        <p id="passkey-status" class="hint" role="status"></p>
      </section>
      <section aria-labelledby="sso-heading">
        <h2 id="sso-heading">Or use single sign-on</h2>
        <p class="hint">
          If your brand connected its identity provider, sign in there with your work account. Some
          brands require it.
        </p>
        <SsoStartForm />
      </section>
      <p class="hint">
        Operators manage brands with <code>brandctl</code>; API keys never sign in here.
      </p>
    </Layout>
  );
}

/** The same answer whether or not the address belongs to a member. */
export function CheckEmailPage(props: { email: string }) {
  return (
    <Layout title="Check your email">
      <h1>Check your email</h1>
      <Notice tone="ok">
        If {props.email} belongs to a member of a brand that can use the Developers area, a sign-in
        link is on its way. It works once, within 15 minutes.
      </Notice>
      <p>
        Nothing arrived? Check your spam folder first. An address is sent at most one link a minute,
        and less often (up to one in 15 minutes) while its links go unused, so asking again soon
        sends nothing new: look for the earlier link instead. Otherwise{' '}
        <a href="/sign-in">request another link</a>.
      </p>
    </Layout>
  );
}

/**
 * The page a sign-in link opens. Mail scanners follow links, so opening it signs nobody in:
 * the person presses the button (a POST), which spends the link. It names the address the link
 * signs in, so a link someone sent on for their own address is not taken for one's own.
 */
/**
 * The page a sign-in link opens. `email` is absent only while records is older than the
 * console (a rolling upgrade): the page then cannot name the address and says so.
 */
export function ConfirmSignInPage(props: { token: string; email?: string }) {
  const as = props.email ? ` as ${props.email}` : '';
  return (
    <Layout title="Confirm sign-in">
      <h1>Sign in{as}</h1>
      <p>Press the button to finish signing in on this device.</p>
      <form method="post" action={`/sign-in/${props.token}`}>
        <button type="submit">Sign in{as}</button>
      </form>
      <p class="hint">
        {props.email
          ? 'Not your address? Then do not press it: you would work as that person, in their brands, and they would see what you enter. '
          : 'Press it only if you asked for this link yourself: a link someone else sent you signs you in as them, in their brands, and they would see what you enter. '}
        <a href="/sign-in">Sign in with your own address</a>.
      </p>
    </Layout>
  );
}

export function InvalidLinkPage() {
  return (
    <Layout title="Link not valid">
      <h1>This sign-in link does not work</h1>
      <Notice tone="error">
        It was already used, has expired (links last 15 minutes), or was copied incompletely.
      </Notice>
      <p>
        <a href="/sign-in">Request a new link</a>
      </p>
    </Layout>
  );
}
