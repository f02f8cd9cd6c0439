import type * as OpenIdClientModule from 'openid-client' with { 'resolution-mode': 'import' };
import { createHash } from 'node:crypto';
import { isLoopbackIssuer } from './issuerUrl';
import {
  PROVIDER_REQUEST_TIMEOUT_MS,
  ProviderRefusedError,
  providerFetch,
  providerRefusalIn,
} from './provider/providerFetch';
import { discoveryRefusal, type ProviderPolicy } from './provider/providerPolicy';

type OpenIdClient = typeof OpenIdClientModule;

/**
 * openid-client is an ES module and records is built as CommonJS: loaded once, with import()
 * (which CommonJS may call), on the first use.
 */
let loaded: Promise<OpenIdClient> | undefined;
export function openIdClient(): Promise<OpenIdClient> {
  loaded ??= import('openid-client');
  return loaded;
}

/** A brand's client at its identity provider. */
export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Reads the issuer's discovery document and returns the client configuration openid-client
 * checks everything against (issuer, endpoints, keys). Every request it makes, now and for
 * the sign-ins that use the configuration, goes through providerFetch (the egress policy,
 * bounded in size and time); every endpoint the document names must pass the same policy
 * (discoveryRefusal), so a `javascript:` authorization endpoint or a token endpoint on another
 * origin is refused here, before anyone is sent there. The client authenticates with HTTP
 * Basic (client_secret_basic, what OpenID Connect assumes when a client registers nothing
 * else). Throws ProviderRefusedError for what the policy refused, otherwise what openid-client
 * throws (the issuer not answering, a document for another issuer).
 */
export async function discoverProvider(
  c: ProviderClient,
  policy: ProviderPolicy,
): Promise<OpenIdClientModule.Configuration> {
  const oidc = await openIdClient();
  const url = new URL(c.issuer);
  let config: OpenIdClientModule.Configuration;
  try {
    config = await oidc.discovery(
      url,
      c.clientId,
      undefined,
      oidc.ClientSecretBasic(c.clientSecret),
      {
        // a second more than providerFetch's own limit, so its refusal (with a reason) comes first
        timeout: PROVIDER_REQUEST_TIMEOUT_MS / 1000 + 1,
        [oidc.customFetch]: providerFetch(policy, url),
        // plain http only reaches a loopback provider with the local-only setting (providerFetch)
        ...(isLoopbackIssuer(url) && url.protocol === 'http:'
          ? { execute: [oidc.allowInsecureRequests] }
          : {}),
      },
    );
  } catch (err) {
    throw providerRefusalIn(err) ?? err;
  }
  const why = discoveryRefusal(config.serverMetadata(), url, policy);
  if (why) throw new ProviderRefusedError(`The discovery document's ${why}.`);
  return config;
}

/**
 * Discovered providers, reused by sign-ins for `ttlMs`: a sign-in reads its provider's
 * discovery document once per ten minutes, not at its start and again at its callback (the
 * provider answering slowly or not at all then fails fewer sign-ins, and a busy provider is
 * asked less). The key is the issuer, the client id and a hash of the secret, so a changed
 * connection is discovered afresh; a discovery that fails is not kept, and a sign-in that fails
 * after it forgets the entry (`forget`), so a provider that moved its endpoints is read again
 * at the next attempt. At most `maxEntries`, the oldest dropped first. Saving a connection
 * always discovers afresh (ssoConnectionService.ts): that is the check of what the owner typed.
 */
export class ProviderCache<C = OpenIdClientModule.Configuration> {
  private readonly entries = new Map<string, { at: number; config: Promise<C> }>();

  constructor(
    private readonly discover: (c: ProviderClient) => Promise<C>,
    private readonly opts: { ttlMs: number; maxEntries: number; now?: () => number },
  ) {}

  get(c: ProviderClient): Promise<C> {
    const key = keyOf(c);
    const now = (this.opts.now ?? Date.now)();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.opts.ttlMs) return hit.config;
    const config = this.discover(c);
    this.entries.delete(key);
    this.entries.set(key, { at: now, config });
    if (this.entries.size > this.opts.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    config.catch(() => {
      if (this.entries.get(key)?.config === config) this.entries.delete(key);
    });
    return config;
  }

  forget(c: ProviderClient): void {
    this.entries.delete(keyOf(c));
  }
}

const keyOf = (c: ProviderClient): string =>
  `${c.issuer}\n${c.clientId}\n${createHash('sha256').update(c.clientSecret).digest('base64')}`;

/** The providers sign-ins use (ssoSignIn.ts), discovered under the deployment's policy. */
export const signInProviderCache = (policy: ProviderPolicy) =>
  new ProviderCache((c) => discoverProvider(c, policy), { ttlMs: 10 * 60_000, maxEntries: 1_000 });
