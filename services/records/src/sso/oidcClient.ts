import type * as OpenIdClientModule from 'openid-client' with { 'resolution-mode': 'import' };
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

/**
 * Reads the issuer's discovery document and returns the client configuration openid-client
 * checks everything against (issuer, endpoints, keys). The client authenticates with HTTP
 * Basic (client_secret_basic, what OpenID Connect assumes when a client registers nothing
 * else). Plain http is allowed for a loopback issuer only (checkIssuer refused the rest).
 * Throws what openid-client throws (the issuer not answering, a document for another issuer).
 */
export async function discoverProvider(c: {
  issuer: string;
  clientId: string;
  clientSecret: string;
}): Promise<OpenIdClientModule.Configuration> {
  const oidc = await openIdClient();
  const url = new URL(c.issuer);
  return oidc.discovery(url, c.clientId, undefined, oidc.ClientSecretBasic(c.clientSecret), {
    timeout: PROVIDER_TIMEOUT_SECONDS,
    ...(isLoopbackIssuer(url) && url.protocol === 'http:'
      ? { execute: [oidc.allowInsecureRequests] }
      : {}),
  });
}
