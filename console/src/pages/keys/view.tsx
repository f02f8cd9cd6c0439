import type { ApiKey } from '@brand/proto/access/v1';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { Csrf, Layout, Notice, SecretShownOnce, type Viewer } from '../../views/layout';
import { formatTime } from '../../views/format';

export interface KeysPageProps {
  viewer: Viewer;
  keys: ApiKey[];
  canManage: boolean;
  error?: string;
  notice?: string;
  form?: { name?: string; environment?: string; campaignsPrepare?: boolean };
}

export function KeysPage(props: KeysPageProps) {
  const { viewer } = props;
  const base = `/brands/${viewer.brandId}/keys`;
  return (
    <Layout title="API keys" viewer={viewer} section="keys">
      <h1>API keys</h1>
      <p>
        Integrations read this brand's records with a key (<code>Authorization: Bearer …</code>).
        Each key belongs to this brand only.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {!props.canManage && (
        <Notice>
          Only brand owners create and revoke keys. You are a {viewer.role} of this brand: you can
          see the keys, not change them.
        </Notice>
      )}
      <table>
        <caption class="hint">Keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Environment</th>
            <th scope="col">Key</th>
            <th scope="col">Permissions</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {props.keys.length === 0 && (
            <tr>
              <td colSpan={7}>No keys yet.</td>
            </tr>
          )}
          {props.keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td>{ENVIRONMENTS.fromProto(k.environment) ?? 'unknown'}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{['read records', ...k.permissions].join(', ')}</td>
              <td>
                {formatTime(k.created_at)}
                <br />
                <span class="hint">by {k.created_by || 'operator'}</span>
              </td>
              <td>{k.last_used_at ? formatTime(k.last_used_at) : 'never'}</td>
              <td>
                {k.revoked_at ? (
                  `revoked ${formatTime(k.revoked_at)}`
                ) : props.canManage ? (
                  <a href={`${base}/${k.id}/revoke`} aria-label={`Revoke ${k.name}`}>
                    Revoke…
                  </a>
                ) : (
                  'active'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.canManage && <CreateKeyForm viewer={viewer} form={props.form} />}
      <h2>Replacing a key</h2>
      <ReplacementSteps />
    </Layout>
  );
}

function CreateKeyForm(props: { viewer: Viewer; form: KeysPageProps['form'] }) {
  const env = props.form?.environment ?? 'live';
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <form class="stack" method="post" action={`/brands/${props.viewer.brandId}/keys`}>
        <Csrf token={props.viewer.csrfToken} />
        <label for="key-name">Name (the integration that will use it)</label>
        <input
          id="key-name"
          name="name"
          type="text"
          required
          maxLength={200}
          value={props.form?.name ?? ''}
        />
        <fieldset>
          <legend>Environment</legend>
          <label>
            <input type="radio" name="environment" value="live" checked={env === 'live'} /> Live
          </label>{' '}
          <label>
            <input type="radio" name="environment" value="test" checked={env === 'test'} /> Test
          </label>
        </fieldset>
        <fieldset>
          <legend>Extra permission</legend>
          <label>
            <input
              type="checkbox"
              name="campaigns_prepare"
              checked={props.form?.campaignsPrepare === true}
              aria-describedby="prepare-hint"
            />{' '}
            Prepare campaign plans (<code>campaigns:prepare</code>)
          </label>
          <p id="prepare-hint" class="hint">
            Live keys only. A plan is a draft a person at the brand reviews: nothing is published,
            funded or approved.
          </p>
        </fieldset>
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
    </section>
  );
}

/** SPEC 5.5: the replacement flow, wherever a key is revoked. */
function ReplacementSteps() {
  return (
    <ol>
      <li>Create a new key.</li>
      <li>Update the integration to use the new key.</li>
      <li>Verify it reads the intended brand (for example, list a page of campaigns).</li>
      <li>Then revoke the old key. A revoked key stops working at once and can never be reused.</li>
    </ol>
  );
}

export function RevokeKeyPage(props: { viewer: Viewer; apiKey: ApiKey }) {
  const { viewer, apiKey } = props;
  return (
    <Layout title="Revoke key" viewer={viewer} section="keys">
      <h1>Revoke “{apiKey.name}”?</h1>
      <p>
        Key <code>{apiKey.prefix}…</code> stops working at once: every request with it gets{' '}
        <code>401 invalid_key</code>. This cannot be undone.
      </p>
      <h2>Replacing it?</h2>
      <ReplacementSteps />
      <form method="post" action={`/brands/${viewer.brandId}/keys/${apiKey.id}/revoke`}>
        <Csrf token={viewer.csrfToken} />
        <div class="actions">
          <button type="submit" class="danger">
            Revoke this key
          </button>
          <a href={`/brands/${viewer.brandId}/keys`}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}

/** The only time a key is shown (no-store; the secret is gone from the server once read). */
export function KeyCreatedPage(props: {
  viewer: Viewer;
  created?: { name: string; secret: string; prefix: string };
  gatewayUrl: string;
}) {
  const { viewer, created } = props;
  return (
    <Layout title="New key" viewer={viewer} section="keys" scripts={['/static/copy.js']}>
      {created ? (
        <>
          <h1>Your new key “{created.name}”</h1>
          <SecretShownOnce secret={created.secret} copyLabel="Copy key">
            This is the only time the key is shown. Copy it now and store it in your secret manager:
            reloading this page will not show it again.
          </SecretShownOnce>
          <h2>Keep it safe</h2>
          <p>
            Keep keys on servers only: never in browser code, public widgets, repositories,
            screenshots or support messages. If a key leaks, create a new one and revoke this one.
          </p>
          <h2>Try it</h2>
          <pre>
            <code>{`# on a server, with the key in its secret store:\ncurl -s '${props.gatewayUrl}/api/v1/campaigns?limit=2' \\\n  -H "Authorization: Bearer $BRAND_RECORDS_KEY"`}</code>
          </pre>
        </>
      ) : (
        <>
          <h1>This key is no longer shown</h1>
          <Notice tone="error">
            A new key is shown exactly once. It was already shown (or two minutes passed), so it
            cannot be shown again. If you did not copy it, revoke it and create another.
          </Notice>
        </>
      )}
      <p>
        <a href={`/brands/${viewer.brandId}/keys`}>Back to API keys</a>
      </p>
    </Layout>
  );
}
