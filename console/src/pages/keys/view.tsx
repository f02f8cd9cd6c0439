import type { ApiKey } from '@brand/proto/access/v1';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { Csrf, Layout, Notice, SecretShownOnce, type Viewer } from '../../views/layout';
import { formatTime, formatTimeToSecond } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { formatAgo, formatRemaining } from '../../views/countdown';
import { keyState } from './keyState';
import { KeyPolicy, NetworksCell, NetworksField } from './networksView';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { OnceField } from '../../forms/onceField';

export interface KeysPageProps {
  viewer: Viewer;
  keys: ApiKey[];
  canManage: boolean;
  /** The brand's key policy: every new key must have allowed networks (issue 63). */
  requireKeyNetworks: boolean;
  error?: string;
  notice?: string;
  form?: {
    name?: string;
    environment?: string;
    campaignsPrepare?: boolean;
    auditRead?: boolean;
    networks?: string;
    expires?: string;
    expiresAt?: string;
  };
  /** The create form's one-time token: a repeat of the form creates no second key. */
  onceToken: string;
  /** The clock the countdowns are rendered with (tests pass their own). */
  now?: number;
}

export function KeysPage(props: KeysPageProps) {
  const { viewer } = props;
  const base = `/brands/${viewer.brandId}/keys`;
  const now = props.now ?? Date.now();
  const prefixOf = new Map(props.keys.map((k) => [k.id, k.prefix]));
  const counting = props.keys.some((k) => keyState(k, now) === 'expiring');
  return (
    <Layout
      title="API keys"
      viewer={viewer}
      section="keys"
      scripts={counting ? ['/static/countdown.js'] : []}
    >
      <h1>API keys</h1>
      <p>
        Integrations read this brand's records with a key (<code>Authorization: Bearer …</code>).
        Each key belongs to this brand only.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      {props.error && <Notice tone="error">{props.error}</Notice>}
      {!props.canManage && (
        <Notice>
          Only brand owners create, roll and revoke keys. You are a {viewer.role} of this brand: you
          can see the keys, not change them.
        </Notice>
      )}
      <DataTable
        label="Keys"
        caption="Keys, newest first"
        columns={[
          'Name',
          'Environment',
          'Key',
          'Permissions',
          'Networks',
          'Created',
          'Last used',
          'Status',
        ]}
      >
        {props.keys.length === 0 && (
          <tr>
            <td colSpan={8}>No keys yet.</td>
          </tr>
        )}
        {props.keys.map((k) => (
          <tr>
            <td>{k.name}</td>
            <td>{ENVIRONMENTS.fromProto(k.environment) ?? 'unknown'}</td>
            <td>
              <code class="token">{k.prefix}…</code>
            </td>
            <td>{['read records', ...k.permissions].join(', ')}</td>
            <td>
              <NetworksCell apiKey={k} requireKeyNetworks={props.requireKeyNetworks} />
            </td>
            <td>
              <UtcTime at={k.created_at} />
              <br />
              <span class="hint email">by {k.created_by || 'operator'}</span>
            </td>
            <td>
              {k.last_used_at ? (
                <time datetime={k.last_used_at} title={formatTimeToSecond(k.last_used_at)}>
                  {formatAgo(k.last_used_at, now)}
                </time>
              ) : (
                'never'
              )}
              <br />
              <a
                href={`/brands/${viewer.brandId}/usage?key=${k.id}`}
                aria-label={`Usage of ${k.name}`}
              >
                Usage
              </a>
            </td>
            <td>
              <KeyStatus
                apiKey={k}
                now={now}
                replacedByPrefix={prefixOf.get(k.replaced_by ?? '')}
              />
              {props.canManage && <KeyActions apiKey={k} now={now} base={base} />}
            </td>
          </tr>
        ))}
      </DataTable>
      <KeyPolicy
        viewer={viewer}
        keys={props.keys}
        requireKeyNetworks={props.requireKeyNetworks}
        canManage={props.canManage}
        now={now}
      />
      {props.canManage && (
        <CreateKeyForm
          viewer={viewer}
          form={props.form}
          requireKeyNetworks={props.requireKeyNetworks}
          onceToken={props.onceToken}
        />
      )}
      <h2>Replacing a key</h2>
      <p>
        <strong>Roll</strong> a key to replace it in one step: the new key has the same name,
        environment and permissions and is shown once, and the old key keeps working for the overlap
        you choose (none, 1 hour, 24 hours or 7 days), then is refused with{' '}
        <code>401 invalid_key</code>. You can end the overlap early with <em>Expire now</em>. An
        expiry can only be brought forward, never extended. By hand, the same steps are:
      </p>
      <ReplacementSteps />
    </Layout>
  );
}

/** A key's status in words; an expiring key's countdown is ticked by /static/countdown.js. */
function KeyStatus(props: { apiKey: ApiKey; now: number; replacedByPrefix?: string }) {
  const k = props.apiKey;
  const replaced = k.replaced_by && (
    <>
      <br />
      <span class="hint">
        replaced by <code>{props.replacedByPrefix ?? k.replaced_by}…</code>
      </span>
    </>
  );
  switch (keyState(k, props.now)) {
    case 'revoked':
      return <>revoked {formatTime(k.revoked_at!)}</>;
    case 'expired':
      return (
        <>
          expired {formatTime(k.expires_at!)}
          {replaced}
        </>
      );
    case 'expiring':
      return (
        <>
          <span data-expires-at={k.expires_at}>
            expires in {formatRemaining(Date.parse(k.expires_at!) - props.now)}
          </span>
          <br />
          <span class="hint">at {formatTime(k.expires_at!)}</span>
          {replaced}
        </>
      );
    default:
      return <>active</>;
  }
}

/** Roll (a key not rolled yet), expire now (a key with an expiry) and revoke, for owners. */
function KeyActions(props: { apiKey: ApiKey; now: number; base: string }) {
  const k = props.apiKey;
  const state = keyState(k, props.now);
  if (state === 'revoked' || state === 'expired') return null;
  return (
    <div class="row-actions">
      {!k.replaced_by && (
        <a href={`${props.base}/${k.id}/roll`} aria-label={`Roll ${k.name}`}>
          Roll…
        </a>
      )}
      {state === 'expiring' && (
        <a href={`${props.base}/${k.id}/expire`} aria-label={`Expire ${k.name} now`}>
          Expire now…
        </a>
      )}
      <a href={`${props.base}/${k.id}/networks`} aria-label={`Allowed networks of ${k.name}`}>
        Networks…
      </a>
      <a href={`${props.base}/${k.id}/revoke`} aria-label={`Revoke ${k.name}`}>
        Revoke…
      </a>
    </div>
  );
}

function CreateKeyForm(props: {
  viewer: Viewer;
  form: KeysPageProps['form'];
  requireKeyNetworks: boolean;
  onceToken: string;
}) {
  const env = props.form?.environment ?? 'live';
  const expires = props.form?.expires ?? 'none';
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <form class="stack" method="post" action={`/brands/${props.viewer.brandId}/keys`}>
        <Csrf token={props.viewer.csrfToken} />
        <OnceField token={props.onceToken} />
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
        <NetworksField
          id="key-networks"
          value={props.form?.networks ?? ''}
          required={props.requireKeyNetworks}
        />
        <fieldset>
          <legend>Extra permissions</legend>
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
          <label>
            <input
              type="checkbox"
              name="audit_read"
              checked={props.form?.auditRead === true}
              aria-describedby="audit-hint"
            />{' '}
            Read the audit log (<code>audit:read</code>)
          </label>
          <p id="audit-hint" class="hint">
            For a SIEM that pulls the brand's activity and refused requests from{' '}
            <code>GET /api/v1/audit-log</code>.
          </p>
        </fieldset>
        <fieldset>
          <legend>Expires</legend>
          {(
            [
              ['none', 'Never'],
              ['1h', 'In 1 hour'],
              ['24h', 'In 24 hours'],
              ['7d', 'In 7 days'],
            ] as const
          ).map(([value, label]) => (
            <>
              <label>
                <input type="radio" name="expires" value={value} checked={expires === value} />{' '}
                {label}
              </label>{' '}
            </>
          ))}
          <div>
            <label>
              <input type="radio" name="expires" value="at" checked={expires === 'at'} /> At a time
              (UTC):
            </label>{' '}
            <label for="key-expires-at" class="visually-hidden">
              Expiry time (UTC)
            </label>
            {/* typed like every other time field (views/utcTimeInput.tsx), not datetime-local */}
            <input
              id="key-expires-at"
              name="expires_at"
              type="text"
              value={props.form?.expiresAt ?? ''}
              placeholder="YYYY-MM-DD HH:MM"
              title="A UTC time such as 2026-11-20 14:00"
              size={16}
              maxLength={40}
              spellcheck={false}
              autocomplete="off"
              aria-describedby="expires-hint"
            />
          </div>
          <p id="expires-hint" class="hint">
            A time in UTC, such as 2026-11-20 14:00. From then on every request with the key is
            refused with <code>401 invalid_key</code>. An expiry can be brought forward later, never
            extended.
          </p>
        </fieldset>
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
    </section>
  );
}

/** docs/contract.md#replacing-a-key: the replacement flow, wherever a key is revoked. */
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
      <PostButton
        action={`/brands/${viewer.brandId}/keys/${apiKey.id}/revoke`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={`/brands/${viewer.brandId}/keys`}
      >
        Revoke this key
      </PostButton>
    </Layout>
  );
}

/** The only time a key is shown (no-store; the secret is gone from the server once read). */
export function KeyCreatedPage(props: {
  viewer: Viewer;
  created?: {
    name: string;
    secret: string;
    prefix: string;
    /** Set when the key replaces another in a roll. */
    replaced?: { prefix: string; expiresAt: string };
  };
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
          {created.replaced && (
            <Notice tone="warn">
              The old key <code>{created.replaced.prefix}…</code>{' '}
              {Date.parse(created.replaced.expiresAt) <= Date.now()
                ? `stopped working at ${formatTime(created.replaced.expiresAt)}.`
                : `keeps working until ${formatTime(created.replaced.expiresAt)}; move your integration to the new key before then.`}
            </Notice>
          )}
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

export function RollKeyPage(props: {
  viewer: Viewer;
  apiKey: ApiKey;
  /** The form's one-time token: a repeat of the form does not roll the key's replacement too. */
  onceToken: string;
  error?: string;
}) {
  const { viewer, apiKey } = props;
  const choices = [
    ['now', 'Now: the old key stops working at once'],
    ['1h', 'In 1 hour'],
    ['24h', 'In 24 hours'],
    ['7d', 'In 7 days'],
  ] as const;
  return (
    <Layout title="Roll key" viewer={viewer} section="keys">
      <h1>Roll “{apiKey.name}”?</h1>
      {props.error && <Notice tone="error">{props.error}</Notice>}
      <p>
        Rolling creates a new key with the same name, environment and permissions, shown to you
        once. The old key <code>{apiKey.prefix}…</code> keeps working until the time you choose
        below, so you can move your integration to the new key; from then on every request with it
        gets <code>401 invalid_key</code>, on every server at once, and it can never be used again.
      </p>
      <form class="stack" method="post" action={`/brands/${viewer.brandId}/keys/${apiKey.id}/roll`}>
        <Csrf token={viewer.csrfToken} />
        <OnceField token={props.onceToken} />
        <fieldset>
          <legend>The old key expires</legend>
          {choices.map(([value, label]) => (
            <div>
              <label>
                <input
                  type="radio"
                  name="old_key_expires_in"
                  value={value}
                  checked={value === '24h'}
                />{' '}
                {label}
              </label>
            </div>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit">Roll key</button>
          <a href={`/brands/${viewer.brandId}/keys`}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}

export function ExpireKeyPage(props: { viewer: Viewer; apiKey: ApiKey; now?: number }) {
  const { viewer, apiKey } = props;
  const now = props.now ?? Date.now();
  return (
    <Layout title="Expire key" viewer={viewer} section="keys">
      <h1>Expire “{apiKey.name}” now?</h1>
      <p>
        Key <code>{apiKey.prefix}…</code> expires at {formatTime(apiKey.expires_at ?? '')} (in{' '}
        {formatRemaining(Date.parse(apiKey.expires_at ?? '') - now)}). Expiring it now ends that
        early: every request with it gets <code>401 invalid_key</code> at once. This cannot be
        undone.
      </p>
      <PostButton
        action={`/brands/${viewer.brandId}/keys/${apiKey.id}/expire`}
        csrfToken={viewer.csrfToken}
        kind="danger"
        cancel={`/brands/${viewer.brandId}/keys`}
      >
        Expire now
      </PostButton>
    </Layout>
  );
}
