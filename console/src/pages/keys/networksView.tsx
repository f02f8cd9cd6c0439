import type { ApiKey } from '@brand/proto/access/v1';
import { MAX_KEY_NETWORKS } from '@brand/shared/keys';
import { Csrf, Layout, type Viewer } from '../../views/layout';
import { keyState } from './keyState';
import { joinSet, shownName } from '../../forms/shownFields';
import { refusalAttrs, RefusalNotice } from '../../views/refusal';

/**
 * Keys bound to networks (issue 63): what the keys page shows of a key's allowed networks,
 * the brand's key policy, and the page that sets a key's networks. Like Stripe's key
 * restrictions: an allow list of IPv4 and IPv6 networks per key, empty for any network.
 */

/** Keys that still work (not revoked, not expired) and have no allowed networks. */
function openKeys(keys: readonly ApiKey[], now: number): ApiKey[] {
  return keys.filter(
    (k) =>
      k.allowed_networks.length === 0 &&
      keyState(k, now) !== 'revoked' &&
      keyState(k, now) !== 'expired',
  );
}

/** A key's networks in its row: the list, or "any network" (flagged while the policy holds). */
export function NetworksCell(props: { apiKey: ApiKey; requireKeyNetworks: boolean }) {
  const nets = props.apiKey.allowed_networks;
  if (nets.length > 0) {
    return (
      <ul class="plain">
        {nets.map((n) => (
          <li>
            <code>{n}</code>
          </li>
        ))}
      </ul>
    );
  }
  return props.requireKeyNetworks ? (
    <span class="flag-waiting">
      <strong>any network</strong>
      <br />
      <span class="hint">no allow list</span>
    </span>
  ) : (
    <>any network</>
  );
}

/** The brand's key policy, and the active keys it does not cover yet. */
export function KeyPolicy(props: {
  viewer: Viewer;
  keys: readonly ApiKey[];
  requireKeyNetworks: boolean;
  canManage: boolean;
  now: number;
}) {
  const open = openKeys(props.keys, props.now);
  return (
    <section aria-labelledby="key-policy">
      <h2 id="key-policy">Allowed networks</h2>
      <p>
        A key with allowed networks works only from them: a request from any other address gets{' '}
        <code>403 network_not_allowed</code> and is in the request log with the address it came
        from. {props.requireKeyNetworks ? 'This brand requires' : 'This brand does not require'}{' '}
        allowed networks for new keys.
      </p>
      {open.length === 0 ? (
        <p>Every active key has allowed networks.</p>
      ) : (
        <>
          <p>
            {open.length === 1 ? 'One active key works' : `${open.length} active keys work`} from
            any network:
          </p>
          <ul>
            {open.map((k) => (
              <li>
                {k.name} (<code>{k.prefix}…</code>)
                {props.canManage && (
                  <>
                    {' '}
                    <a
                      href={`/brands/${props.viewer.brandId}/keys/${k.id}/networks`}
                      aria-label={`Set networks of ${k.name}`}
                    >
                      Set networks…
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {props.canManage && (
        <form class="stack" method="post" action={`/brands/${props.viewer.brandId}/keys/policy`}>
          <Csrf token={props.viewer.csrfToken} />
          <label>
            <input
              type="checkbox"
              name="require_key_networks"
              checked={props.requireKeyNetworks}
              aria-describedby="policy-hint"
            />{' '}
            Require allowed networks for every new key
          </label>
          <p id="policy-hint" class="hint">
            Applies to keys created or rolled from now on. Keys that already exist keep working as
            they are; give them networks with <em>Networks…</em>.
          </p>
          <div>
            <button type="submit">Save policy</button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The create form's field, and the networks page's. */
export function NetworksField(props: {
  value: string;
  required?: boolean;
  id: string;
  /** A refused save named the list: someone else changed it too (409, views/refusal.tsx). */
  refused?: boolean;
}) {
  // undefined: the page does not say (a key's own page: the policy is on the keys page)
  const suffix =
    props.required === undefined
      ? ''
      : props.required
        ? ' (required by this brand)'
        : ' (optional)';
  return (
    <>
      <label for={props.id}>Allowed networks{suffix}</label>
      <textarea
        id={props.id}
        name="allowed_networks"
        rows={3}
        maxLength={4000}
        {...refusalAttrs(props.refused === true, `${props.id}-hint`)}
      >
        {props.value}
      </textarea>
      <p id={`${props.id}-hint`} class="hint">
        IPv4 and IPv6 networks or addresses, one per line or comma-separated, at most{' '}
        {MAX_KEY_NETWORKS} (e.g. <code>203.0.113.0/24</code>, <code>2001:db8::/32</code>,{' '}
        <code>198.51.100.7</code>). Empty: the key works from any network. The address is the one
        the API sees: your servers' public egress address, not a private one.
      </p>
    </>
  );
}

export function KeyNetworksPage(props: {
  viewer: Viewer;
  apiKey: ApiKey;
  typed?: string;
  error?: string;
  /** The save was refused over another owner's change of the list (409). */
  conflict?: boolean;
}) {
  const { viewer, apiKey } = props;
  return (
    <Layout title="Allowed networks" viewer={viewer} section="keys">
      <h1>Allowed networks of “{apiKey.name}”</h1>
      <RefusalNotice
        message={props.error}
        fields={props.conflict ? [{ id: 'key-networks', label: 'Allowed networks' }] : []}
      />
      <p>
        Key <code>{apiKey.prefix}…</code> works{' '}
        {apiKey.allowed_networks.length === 0
          ? 'from any network'
          : `only from ${apiKey.allowed_networks.join(', ')}`}
        . The new list replaces it on every server at once: from the next request, a request from
        elsewhere gets <code>403 network_not_allowed</code>.
      </p>
      <form
        class="stack"
        method="post"
        action={`/brands/${viewer.brandId}/keys/${apiKey.id}/networks`}
      >
        <Csrf token={viewer.csrfToken} />
        {/* the list as shown: a save over another owner's change of it is refused (shownFields.ts) */}
        <input
          type="hidden"
          name={shownName('allowed_networks')}
          value={joinSet(apiKey.allowed_networks)}
        />
        <NetworksField
          id="key-networks"
          value={props.typed ?? apiKey.allowed_networks.join('\n')}
          refused={props.conflict}
        />
        <div class="actions">
          <button type="submit">Save networks</button>
          <a href={`/brands/${viewer.brandId}/keys`}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
