import type {
  DeprovisionedPerson,
  GetProvisioningResponse,
  ProvisioningSettings,
  ScimToken,
} from '@brand/proto/access/v1/provisioning';
import type { Receiver } from '@brand/proto/webhooks/v1';
import { ROLES } from '@brand/shared/enums';
import { formatTime } from '../../views/format';
import { UtcTime } from '../../views/utcTime';
import { OnceField } from '../../forms/onceField';
import { shownName } from '../../forms/shownFields';
import { Csrf, Layout, Notice, SecretShownOnce, type Viewer } from '../../views/layout';
import { DataTable } from '../../views/dataTable';
import { PostButton } from '../../views/postButton';
import { namedFields, refusalAttrs, RefusalNotice, type NamedField } from '../../views/refusal';

const roleOf = (r: number): string => ROLES.fromProto(r) ?? 'member';

/** A token's state in words: working, working until (a rotation's overlap), or ended. */
function TokenState(props: { t: ScimToken }) {
  const { t } = props;
  if (t.revoked_at) return <span class="status-failed">Revoked {formatTime(t.revoked_at)}</span>;
  if (t.expires_at && Date.parse(t.expires_at) <= Date.now())
    return <span class="status-failed">Ended {formatTime(t.expires_at)}</span>;
  if (t.expires_at)
    return <span class="status-pending">Works until {formatTime(t.expires_at)}</span>;
  return <span class="status-succeeded">Working</span>;
}

/**
 * The settings form's fields in the form's own terms (a ticked box is "on", else ""). A type, not an
 * interface: Object.entries keeps its values' type.
 */
/** The settings form's fields as a refusal names and links them. */
const PROVISIONING_SETTINGS_FIELDS: Readonly<Record<string, NamedField>> = {
  jit_enabled: { id: 'jit-enabled', label: 'Just-in-time membership' },
  jit_groups_claim: { id: 'groups-claim', label: 'The ID token claim that carries the groups' },
  revoke_keys_on_deprovision: { id: 'revoke-keys', label: 'Revoke the API keys' },
};

export type SettingsFormValues = {
  jit_enabled: string;
  jit_groups_claim: string;
  revoke_keys_on_deprovision: string;
};

/**
 * Provisioning (owners only): the SCIM endpoint and its tokens, the provider's groups mapped to
 * roles, just-in-time membership, what deprovisioning does with keys, the members the provider
 * manages, and its last requests.
 */
/**
 * The settings form's fields as shown, in the form's own terms (a ticked box is "on"): posted back
 * hidden, and what the route compares a save with.
 */
export function shownSettings(p: ProvisioningSettings | undefined): SettingsFormValues {
  return {
    jit_enabled: p?.jit_enabled ? 'on' : '',
    jit_groups_claim: p?.jit_groups_claim ?? 'groups',
    revoke_keys_on_deprovision: p?.revoke_keys_on_deprovision ? 'on' : '',
  };
}

export function ProvisioningPage(props: {
  viewer: Viewer;
  origin: string;
  p: GetProvisioningResponse;
  /** The brand's receivers, to name those a deprovisioned person added; undefined: unknown. */
  receivers: Receiver[] | undefined;
  /**
   * The one-time token of the new-token and rotate forms (each claims it under its own form
   * name): a repeat of a form makes no second token.
   */
  onceToken: string;
  notice?: string;
  error?: string;
  /** The settings form's values when shown again with a refusal (else the stored settings). */
  settingsForm?: SettingsFormValues;
  /** The settings a refused save named: someone else changed them too (409). */
  conflicts?: readonly string[];
}) {
  const { viewer, p } = props;
  const named = (field: string): boolean => props.conflicts?.includes(field) ?? false;
  const settingsForm = props.settingsForm ?? shownSettings(p.settings);
  const base = `/brands/${viewer.brandId}/provisioning`;
  const live = p.tokens.filter(
    (t) => !t.revoked_at && !(t.expires_at && Date.parse(t.expires_at) <= Date.now()),
  );
  return (
    <Layout title="Provisioning" viewer={viewer} section="provisioning">
      <h1>Provisioning</h1>
      <p>
        Your identity provider (Okta, Microsoft Entra ID, any SCIM 2.0 client) can add, update and
        remove {viewer.brandName}’s members itself, at the domains this brand verified on{' '}
        <a href={`/brands/${viewer.brandId}/sso`}>Single sign-on</a>. A person it deactivates or
        deletes loses the brand at once.
      </p>
      {props.notice && <Notice tone="ok">{props.notice}</Notice>}
      <RefusalNotice
        message={props.error}
        fields={namedFields(props.conflicts, PROVISIONING_SETTINGS_FIELDS)}
      />

      <section aria-labelledby="scim-endpoint">
        <h2 id="scim-endpoint">SCIM endpoint</h2>
        <p>
          Base URL (tenant URL): <code>{`${props.origin}/scim/v2`}</code>
          <br />
          Authentication: a bearer token from below (the secret token).
        </p>
        <p class="hint">
          A token works only as long as its maker’s authority: it ends when the owner who made or
          last rotated it leaves the brand, is deprovisioned, or loses the owner role. Before that
          owner goes, another owner rotates the token (the new one is theirs), or provisioning stops
          with them.
        </p>
        <DataTable
          label="SCIM tokens"
          caption={<>SCIM tokens ({live.length} working)</>}
          columns={['Name', 'Token', 'Created', 'Last used', 'State', 'Actions']}
        >
          {p.tokens.map((t) => (
            <tr>
              <td>{t.name}</td>
              <td>
                <code>{t.prefix}…</code>
              </td>
              <td>
                <UtcTime at={t.created_at} /> <span class="hint email">by {t.created_by}</span>
              </td>
              <td>
                <UtcTime at={t.last_used_at} otherwise="Never" />
              </td>
              <td>
                <TokenState t={t} />
              </td>
              <td>
                {!t.revoked_at && !t.expires_at && (
                  <div class="actions">
                    <form method="post" action={`${base}/tokens/${t.id}/rotate`}>
                      <Csrf token={viewer.csrfToken} />
                      <OnceField token={props.onceToken} />
                      <label for={`overlap-${t.id}`} class="visually-hidden">
                        How long the old token of {t.name} keeps working
                      </label>
                      <select id={`overlap-${t.id}`} name="old_token_expires_in">
                        <option value="24h">old one works 24 h</option>
                        <option value="1h">old one works 1 h</option>
                        <option value="7d">old one works 7 days</option>
                        <option value="now">old one ends now</option>
                      </select>
                      <button type="submit" class="secondary" aria-label={`Rotate ${t.name}`}>
                        Rotate
                      </button>
                    </form>
                    <PostButton
                      action={`${base}/tokens/${t.id}/revoke`}
                      csrfToken={viewer.csrfToken}
                      kind="danger"
                      label={`Revoke ${t.name}`}
                    >
                      Revoke
                    </PostButton>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
        <form class="stack" method="post" action={`${base}/tokens`}>
          <Csrf token={viewer.csrfToken} />
          <OnceField token={props.onceToken} />
          <label for="token-name">New token’s name (the provider it is for)</label>
          <input
            id="token-name"
            type="text"
            name="name"
            maxLength={100}
            required
            placeholder="Okta"
          />
          <div>
            <button type="submit">Create SCIM token</button>
          </div>
        </form>
      </section>

      <section aria-labelledby="role-mappings">
        <h2 id="role-mappings">Roles from groups</h2>
        <p>
          A provisioned person’s role is the highest role mapped to any of their groups at the
          provider; with none mapped, they are a member. The brand always keeps an owner: a change
          that would leave it none is refused and shown below.
        </p>
        <DataTable
          label="Groups mapped to roles"
          caption="Groups mapped to roles"
          columns={['Group (name or id at the provider)', 'Role', 'Actions']}
        >
          {p.mappings.map((m) => (
            <tr>
              <td>{m.group_key}</td>
              <td>{roleOf(m.role)}</td>
              <td>
                <PostButton
                  action={`${base}/mappings/remove`}
                  csrfToken={viewer.csrfToken}
                  fields={{ group_key: m.group_key }}
                  kind="secondary"
                  label={`Remove the mapping of ${m.group_key}`}
                >
                  Remove
                </PostButton>
              </td>
            </tr>
          ))}
        </DataTable>
        <form class="stack" method="post" action={`${base}/mappings`}>
          <Csrf token={viewer.csrfToken} />
          <label for="group-key">Group</label>
          <input
            id="group-key"
            type="text"
            name="group_key"
            maxLength={256}
            required
            placeholder="Brand Records Admins"
          />
          <label for="group-role">Role</label>
          <select id="group-role" name="role">
            {ROLES.names.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
          <div>
            <button type="submit">Map the group</button>
          </div>
        </form>
      </section>

      <section aria-labelledby="provisioning-settings">
        <h2 id="provisioning-settings">Just in time, and deprovisioning</h2>
        <form class="stack" method="post" action={`${base}/settings`}>
          <Csrf token={viewer.csrfToken} />
          {/* what the page showed: a save sends only what was changed (forms/shownFields.ts) */}
          {Object.entries(shownSettings(p.settings)).map(([name, value]) => (
            <input type="hidden" name={shownName(name)} value={value} />
          ))}
          <label>
            <input
              id="jit-enabled"
              type="checkbox"
              name="jit_enabled"
              checked={settingsForm.jit_enabled === 'on'}
              {...refusalAttrs(named('jit_enabled'))}
            />{' '}
            Add a person at a verified domain as a member at their first single sign-on, with the
            role their groups map to, and follow the groups at each sign-in
          </label>
          <label for="groups-claim">The ID token claim that carries the groups</label>
          <input
            id="groups-claim"
            type="text"
            name="jit_groups_claim"
            maxLength={100}
            value={settingsForm.jit_groups_claim}
            {...refusalAttrs(named('jit_groups_claim'))}
          />
          <label>
            <input
              id="revoke-keys"
              type="checkbox"
              name="revoke_keys_on_deprovision"
              checked={settingsForm.revoke_keys_on_deprovision === 'on'}
              {...refusalAttrs(named('revoke_keys_on_deprovision'))}
            />{' '}
            Revoke the API keys a deprovisioned person created (off: they keep working, and the
            activity lists them for you to roll or revoke)
          </label>
          <div>
            <button type="submit">Save</button>
          </div>
        </form>
      </section>

      <section aria-labelledby="managed-members">
        <h2 id="managed-members">Members the provider manages</h2>
        {p.managed.length === 0 ? (
          <p class="hint">None yet.</p>
        ) : (
          <DataTable
            label="Members the provider manages"
            caption="Their role follows the provider; change it there"
            columns={['Email', 'Role', 'By', 'Groups']}
          >
            {p.managed.map((m) => (
              <tr>
                <td>{m.email}</td>
                <td>{roleOf(m.role)}</td>
                <td>{m.managed_by === 'scim' ? 'SCIM' : 'single sign-on (just in time)'}</td>
                <td>{m.groups.join(', ') || <span class="hint">none</span>}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <Deprovisioned viewer={viewer} people={p.deprovisioned} receivers={props.receivers} />

      <section aria-labelledby="scim-requests">
        <h2 id="scim-requests">The provider’s last requests</h2>
        {p.requests.length === 0 ? (
          <p class="hint">None yet.</p>
        ) : (
          <DataTable
            label="Provisioning requests"
            caption="Newest first"
            columns={['When', 'Token', 'Request', 'Answer']}
          >
            {p.requests.map((r) => (
              <tr>
                <td>
                  <UtcTime at={r.at} />
                </td>
                <td>{r.token_name}</td>
                <td>
                  <code>
                    {r.method} {r.path}
                  </code>
                </td>
                <td>
                  <span class={r.status < 400 ? 'status-succeeded' : 'status-failed'}>
                    {r.status}
                  </span>{' '}
                  {r.summary}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </Layout>
  );
}

/** The new token, once. */
export function ScimTokenCreatedPage(props: {
  viewer: Viewer;
  created?: { name: string; secret: string; origin: string };
}) {
  const base = `/brands/${props.viewer.brandId}/provisioning`;
  return (
    <Layout
      title="SCIM token"
      viewer={props.viewer}
      section="provisioning"
      scripts={['/static/copy.js']}
    >
      <h1>SCIM token</h1>
      {props.created ? (
        <>
          <SecretShownOnce secret={props.created.secret} copyLabel="Copy token">
            Copy the token for {props.created.name} now: it is shown once. Paste it at your provider
            as the secret token, with the base URL <code>{`${props.created.origin}/scim/v2`}</code>.
          </SecretShownOnce>
        </>
      ) : (
        <Notice>This token was shown once already; rotate it for a new one.</Notice>
      )}
      <p>
        <a href={base}>Back to Provisioning</a>
      </p>
    </Layout>
  );
}

/** What a non-owner sees. */
export function ProvisioningNotAllowedPage(props: { viewer: Viewer }) {
  return (
    <Layout title="Provisioning" viewer={props.viewer} section="provisioning">
      <h1>Provisioning</h1>
      <Notice>
        Only brand owners see and manage how people come from the brand’s identity provider.
      </Notice>
    </Layout>
  );
}

/**
 * The people the provider no longer makes members, and what they left: the API keys they created
 * that still work (an owner rolls or revokes them, or keeps them for the integration's sake) and
 * the receivers they added (the brand's, which stay).
 */
function Deprovisioned(props: {
  viewer: Viewer;
  people: DeprovisionedPerson[];
  receivers: Receiver[] | undefined;
}) {
  const { viewer } = props;
  if (props.people.length === 0) return null;
  return (
    <section aria-labelledby="deprovisioned">
      <h2 id="deprovisioned">People the provider deprovisioned</h2>
      <DataTable
        label="Deprovisioned people"
        caption="What they created is still the brand’s: keep, roll or revoke it"
        columns={['Email', 'API keys that still work', 'Receivers they added']}
      >
        {props.people.map((person) => {
          const receivers = (props.receivers ?? []).filter((r) => r.created_by === person.email);
          return (
            <tr>
              <td>{person.email}</td>
              <td>
                {person.keys.length === 0 ? (
                  <span class="hint">none</span>
                ) : (
                  person.keys.map((k, i) => (
                    <>
                      {i > 0 && ', '}
                      <a href={`/brands/${viewer.brandId}/keys#${k.id}`}>{k.name}</a>{' '}
                      <code>{k.prefix}</code>
                    </>
                  ))
                )}
              </td>
              <td>
                {props.receivers === undefined ? (
                  <span class="hint">unknown now (the receivers could not be read)</span>
                ) : receivers.length === 0 ? (
                  <span class="hint">none</span>
                ) : (
                  receivers.map((r, i) => (
                    <>
                      {i > 0 && ', '}
                      <a href={`/brands/${viewer.brandId}/receivers/${r.id}`}>{r.label}</a>
                    </>
                  ))
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}
