import type * as OpenIdClientModule from 'openid-client' with { 'resolution-mode': 'import' };
import { createHash } from 'node:crypto';
import { isLoopbackIssuer } from './issuerUrl';

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

/** Each request to an identity provider gives up after this long (the console waits 5 s). */
const PROVIDER_TIMEOUT_SECONDS = 4;

/** A brand's client at its identity provider. */
export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Reads the issuer's discovery document and returns the client configuration openid-client
 * checks everything against (issuer, endpoints, keys). The client authenticates with HTTP
 * Basic (client_secret_basic, what OpenID Connect assumes when a client registers nothing
 * else). Plain http is allowed for a loopback issuer only (checkIssuer refused the rest).
 * Throws what openid-client throws (the issuer not answering, a document for another issuer).
 */
export async function discoverProvider(
  c: ProviderClient,
): Promise<OpenIdClientModule.Configuration> {
  const oidc = await openIdClient();
  const url = new URL(c.issuer);
  return oidc.discovery(url, c.clientId, undefined, oidc.ClientSecretBasic(c.clientSecret), {
    timeout: PROVIDER_TIMEOUT_SECONDS,
    ...(isLoopbackIssuer(url) && url.protocol === 'http:'
      ? { execute: [oidc.allowInsecureRequests] }
      : {}),
  });
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

/** The providers sign-ins use (ssoSignIn.ts). */
export const signInProviders = new ProviderCache(discoverProvider, {
  ttlMs: 10 * 60_000,
  maxEntries: 1_000,
});
