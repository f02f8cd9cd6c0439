/** How a session was opened: an emailed link, a passkey, or the brand's identity provider. */
export type SignInMethod = 'link' | 'passkey' | 'sso';

/** What the console saw of the browser signing in, as stored with the session. */
export interface SignInClient {
  userAgent: string;
  address: string;
}

/** Control characters are dropped: the values are shown on a page and written to logs. */
const withoutControls = (s: string): string =>
  [...s].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');

/**
 * The client as the console reported it, bounded: a User-Agent header can be any length and
 * is only shown to its owner, so it is cut rather than refused (signing in must not fail on
 * an odd browser); an address longer than any IPv6 text is cut too.
 */
export function boundedClient(
  client: { user_agent: string; address: string } | undefined,
): SignInClient {
  return {
    userAgent: withoutControls(client?.user_agent ?? '').slice(0, 512),
    address: withoutControls(client?.address ?? '').slice(0, 64),
  };
}
