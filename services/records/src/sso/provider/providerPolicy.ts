import { egressUrlRefusal } from '@brand/shared/egress';

/**
 * Where records may send a request on a brand's identity provider's say-so: the receivers'
 * egress policy (@brand/shared/egress), plus staying on the issuer's origin.
 */
export interface ProviderPolicy {
  /** The local-only setting (WEBHOOK_ALLOW_LOOPBACK_RECEIVERS): a provider on loopback, over http too. */
  allowLoopback: boolean;
  /**
   * Origins besides the issuer's own that a discovery document may name (SSO_EXTRA_ORIGINS):
   * some providers serve their token or key endpoints elsewhere (Google's at googleapis.com).
   * Each still passes the egress policy.
   */
  extraOrigins: readonly string[];
}

/** The strictest policy: production's without extra origins. */
export const STRICT_PROVIDER_POLICY: ProviderPolicy = { allowLoopback: false, extraOrigins: [] };

/**
 * Why records may not send a request to `url` for the provider whose issuer is `issuer`, or
 * undefined when it may: the egress rules (https to a public address on an allowed port; a
 * loopback provider, over http too, only with the local-only setting), and the URL's origin
 * is the issuer's or one the operator allowed. The sentence completes "<url> ...".
 */
export function providerUrlRefusal(
  url: URL,
  issuer: URL,
  policy: ProviderPolicy,
): string | undefined {
  const egress = egressUrlRefusal(url, { allowLoopback: policy.allowLoopback, loopbackHttp: true });
  if (egress) return egress.message;
  if (url.origin !== issuer.origin && !policy.extraOrigins.includes(url.origin)) {
    return `leaves the issuer's origin ${issuer.origin} (an operator may allow ${url.origin} with SSO_EXTRA_ORIGINS)`;
  }
  return undefined;
}

/**
 * Discovery metadata that names a place records, or a member's browser, is sent: every
 * `*_endpoint` (authorization, token, userinfo, end_session, revocation, ...), the key set and
 * the check-session iframe, and the mTLS aliases of endpoints.
 */
function namedEndpoints(metadata: Record<string, unknown>): Array<[string, unknown]> {
  const named: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (key.endsWith('_endpoint') || key === 'jwks_uri' || key === 'check_session_iframe') {
      named.push([key, value]);
    }
  }
  const aliases = metadata.mtls_endpoint_aliases;
  if (aliases !== undefined) {
    if (typeof aliases !== 'object' || aliases === null)
      named.push(['mtls_endpoint_aliases', aliases]);
    else
      for (const [key, value] of Object.entries(aliases))
        named.push([`mtls_endpoint_aliases.${key}`, value]);
  }
  return named;
}

/**
 * The first endpoint of a discovery document that breaks the provider policy, as a sentence
 * naming it and why, or undefined. `javascript:` and `data:` URLs, plain http, private
 * addresses and other origins are all refused here, before anyone is sent there.
 */
export function discoveryRefusal(
  metadata: Record<string, unknown>,
  issuer: URL,
  policy: ProviderPolicy,
): string | undefined {
  if (typeof metadata.authorization_endpoint !== 'string') return 'names no authorization_endpoint';
  for (const [key, value] of namedEndpoints(metadata)) {
    if (typeof value !== 'string') return `${key} is not a URL`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `${key} is not a URL`;
    }
    const why = providerUrlRefusal(url, issuer, policy);
    if (why) return `${key} ${shownUrl(url)} ${why}`;
  }
  return undefined;
}

/** A URL as a refusal shows it: scheme, host and path, cut short (never a query's secrets). */
export function shownUrl(url: URL): string {
  const text =
    url.protocol === 'http:' || url.protocol === 'https:'
      ? `${url.origin}${url.pathname}`
      : url.protocol;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
