import type { SsoChangeProof, SsoConnection } from '@brand/proto/access/v1/sso';
import { formatTime } from '../../views/format';
import { Csrf, Layout, Notice, type Viewer } from '../../views/layout';
import { ChangeProofNotice, SsoDomains } from './domainsView';
import { PostButton } from '../../views/postButton';
import { joinSet, shownName } from '../../forms/shownFields';
import { namedFields, refusalAttrs, RefusalNotice, type NamedField } from '../../views/refusal';

/** What the form shows: the stored connection, or what the owner typed (never a secret). */
export interface SsoFormValues {
  issuer: string;
  client_id: string;
  allowed_domains: string;
  enabled: boolean;
}

/** What a page with no connection shows: the empty form. */
const NO_CONNECTION = { issuer: '', client_id: '', allowed_domains: [], enabled: '' } as const;

/**
 * The stored connection's fields in the form's terms (a ticked box is "on", the domains a set):
 * posted back hidden as the page showed them (forms/shownFields.ts), and what the route compares
 * a save with. Always the connection as stored, also when the form holds what the owner typed.
 */
export function shownConnection(c: SsoConnection): {
  issuer: string;
  client_id: string;
  allowed_domains: readonly string[];
  enabled: string;
} {
  return {
    issuer: c.issuer,
    client_id: c.client_id,
    allowed_domains: c.allowed_domains,
    enabled: c.enabled ? 'on' : '',
  };
}

/** The connection form's fields as a refusal names and links them. */
const SSO_FIELDS: Readonly<Record<string, NamedField>> = {
  issuer: { id: 'sso-issuer', label: 'Issuer URL' },
  client_id: { id: 'sso-client-id', label: 'Client id' },
  allowed_domains: { id: 'sso-domains', label: 'Allowed email domains' },
  enabled: { id: 'sso-enabled', label: 'Members may sign in with it' },
};

export function SsoPage(props: {
  viewer: Viewer;
  connection: SsoConnection | undefined;
  /** Whether changing it needs a fresh single sign-on, and until when this session gives one. */
  changeProof: SsoChangeProof | undefined;
  /** The console's public origin: the redirect URI and the brand's SSO link start with it. */
  origin: string;
  signInPolicy: string;
  form: SsoFormValues;
  notice?: string;
  error?: string;
  /** The fields a refused save named: another owner changed them too (409). */
  conflicts?: readonly string[];
}) {
  const { viewer, connection } = props;
  const named = (field: string): boolean => props.conflicts?.includes(field) ?? false;
  const base = `/brands/${viewer.brandId}/sso`;
  const link = `${props.origin}/sign-in/sso?brand=${viewer.brandId}`;
  return (
    <Layout title="Single sign-on" viewer={viewer} section="sso">
      <h1>Single sign-on</h1>
      <p>
        Connect {viewer.brandName}’s identity provider (OpenID Connect). Members whose verified work
        address is at one of the brand’s verified domains then sign in there; an address that is not
        a member of {viewer.brandName} is refused, whatever the provider says. Removing a member
        stays on Members.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      <RefusalNotice message={props.error} fields={namedFields(props.conflicts, SSO_FIELDS)} />
      <ChangeProofNotice brandId={viewer.brandId} proof={props.changeProof} />
      <section aria-labelledby="sso-status">
        <h2 id="sso-status">Status</h2>
        {connection ? (
          <p>
            {connection.enabled ? 'On' : 'Off (disabled)'}: {connection.issuer}, for{' '}
            {connection.allowed_domains.join(', ')}.{' '}
            <span class="hint">Changed {formatTime(connection.updated_at)}.</span>
          </p>
        ) : (
          <p>Not connected: members sign in by emailed link or passkey.</p>
        )}
        {props.signInPolicy === 'sso' && (
          <p>Members must sign in with single sign-on (Members, “How members sign in”).</p>
        )}
      </section>
      {connection && connection.domains.length > 0 && (
        <SsoDomains
          brandId={viewer.brandId}
          csrfToken={viewer.csrfToken}
          domains={connection.domains}
        />
      )}
      <section aria-labelledby="sso-provider">
        <h2 id="sso-provider">Your identity provider</h2>
        <p>
          Register the Developers area at your provider as a web application (authorization code,
          PKCE) with this redirect URI, and ask for the <code>openid email</code> scopes:
        </p>
        <p>
          <code id="sso-redirect-uri">{`${props.origin}/sign-in/sso/callback`}</code>
        </p>
        <p>
          So that a person signed out or removed at the provider is signed out here too, register
          this back-channel logout URI as well (and allow the refresh token grant, which the
          Developers area uses to ask again every few minutes whether the person is still there):{' '}
          <code id="sso-backchannel-uri">{`${props.origin}/sign-in/sso/backchannel-logout`}</code> ·{' '}
          <a href={`/brands/${viewer.brandId}/members/sessions`}>Members’ sessions</a>
        </p>
        <form class="stack" method="post" action={base}>
          <Csrf token={viewer.csrfToken} />
          {/* what the page showed: a save sends only what was changed (forms/shownFields.ts) */}
          {/* with no connection, the empty form: saved over one another owner made since, a
              field set differently is a conflict, not written over theirs */}
          {Object.entries(connection ? shownConnection(connection) : NO_CONNECTION).map(
            ([name, value]) => (
              <input
                type="hidden"
                name={shownName(name)}
                value={typeof value === 'string' ? value : joinSet(value)}
              />
            ),
          )}
          <label for="sso-issuer">Issuer URL</label>
          <input
            id="sso-issuer"
            name="issuer"
            type="url"
            required
            maxLength={512}
            value={props.form.issuer}
            {...refusalAttrs(named('issuer'), 'sso-issuer-hint')}
          />
          <span id="sso-issuer-hint" class="hint">
            As the provider names itself, e.g. https://login.example.com. https only (http for a
            provider on this machine).
          </span>
          <label for="sso-client-id">Client id</label>
          <input
            id="sso-client-id"
            name="client_id"
            type="text"
            required
            maxLength={255}
            value={props.form.client_id}
            {...refusalAttrs(named('client_id'))}
          />
          <label for="sso-client-secret">Client secret</label>
          <input
            id="sso-client-secret"
            name="client_secret"
            type="password"
            autocomplete="off"
            maxLength={1024}
            required={!connection}
            aria-describedby="sso-secret-hint"
          />
          <span id="sso-secret-hint" class="hint">
            {connection
              ? 'Stored encrypted and never shown. Leave empty to keep it.'
              : 'Stored encrypted and never shown again.'}
          </span>
          <label for="sso-domains">Allowed email domains</label>
          <textarea
            id="sso-domains"
            name="allowed_domains"
            rows={3}
            required
            {...refusalAttrs(named('allowed_domains'), 'sso-domains-hint')}
          >
            {props.form.allowed_domains}
          </textarea>
          <span id="sso-domains-hint" class="hint">
            One a line, e.g. example.com. Subdomains are not included unless listed. A domain new
            here starts pending: publish its TXT record, then verify it.
          </span>
          <fieldset>
            <legend>Use</legend>
            <label>
              <input
                id="sso-enabled"
                type="checkbox"
                name="enabled"
                checked={props.form.enabled}
                {...refusalAttrs(named('enabled'))}
              />{' '}
              Members may sign in with it
            </label>
          </fieldset>
          <div>
            <button type="submit">{connection ? 'Save changes' : 'Connect'}</button>
          </div>
        </form>
      </section>
      {connection && (
        <section aria-labelledby="sso-link">
          <h2 id="sso-link">Share with members</h2>
          <p>
            The sign-in page finds {viewer.brandName} from a member’s address. This link goes
            straight to it:
          </p>
          <p>
            <code>{link}</code>
          </p>
          <PostButton action={`${base}/remove`} csrfToken={viewer.csrfToken} kind="danger">
            Remove single sign-on
          </PostButton>
        </section>
      )}
    </Layout>
  );
}

/** What a member who is not an owner sees. */
export function SsoNotAllowedPage(props: { viewer: Viewer }) {
  return (
    <Layout title="Single sign-on" viewer={props.viewer} section="sso">
      <h1>Single sign-on</h1>
      <Notice>
        Only brand owners connect and change the brand’s identity provider. You are a{' '}
        {props.viewer.role} of this brand.
      </Notice>
    </Layout>
  );
}
