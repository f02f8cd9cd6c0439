import { Layout, Notice } from '../../views/layout';

/** The single sign-on form: the work address (or, from a brand's SSO link, the brand). */
export function SsoSignInPage(props: { email?: string; brand?: string; error?: string }) {
  return (
    <Layout title="Single sign-on">
      <h1>Sign in with single sign-on</h1>
      <p>
        If your brand connected its identity provider (Okta, Microsoft Entra ID, Google Workspace or
        any OpenID Connect provider), sign in there with your work account.
      </p>
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <SsoStartForm email={props.email} brand={props.brand} />
      <p>
        <a href="/sign-in">Other ways to sign in</a>
      </p>
    </Layout>
  );
}

/** The form itself, also on the sign-in page. */
export function SsoStartForm(props: { email?: string; brand?: string }) {
  return (
    <form class="stack" method="post" action="/sign-in/sso">
      {props.brand && <input type="hidden" name="brand" value={props.brand} />}
      <label for="sso-email">Your work email</label>
      <input
        id="sso-email"
        name="email"
        type="email"
        autocomplete="email"
        required={!props.brand}
        maxLength={254}
        value={props.email ?? ''}
      />
      <div>
        <button type="submit" class="secondary">
          Sign in with single sign-on
        </button>
      </div>
    </form>
  );
}

/**
 * Where the person leaves for their identity provider: a link (the URL carries the state and
 * PKCE challenge, nothing secret), with the provider's host named so they know where they go.
 */
export function ContinueToProviderPage(props: { url: string; brandName: string }) {
  const host = new URL(props.url).host;
  return (
    <Layout title="Continue to your identity provider">
      <h1>Continue to your identity provider</h1>
      <p>
        {props.brandName} signs its members in at <strong>{host}</strong>. Sign in there; you come
        back here signed in to {props.brandName}.
      </p>
      <p>
        <a class="button" href={props.url}>
          Continue to {host}
        </a>
      </p>
      <p class="hint">This link works once, in this browser, for ten minutes.</p>
    </Layout>
  );
}
