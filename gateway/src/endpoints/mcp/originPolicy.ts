/** The MCP_ALLOWED_ORIGINS word that admits any loopback origin (local development only). */
export const LOOPBACK_ORIGINS = 'loopback';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Which browser origins may call the API. Keys belong on servers, so production allows
 * none by default; the local stack allows `loopback` (http(s)://localhost, 127.0.0.1 or
 * [::1] on any port) so browser tools such as the MCP Inspector work against it.
 */
export function originPolicy(allowed: readonly string[]): (origin: string) => boolean {
  const exact = new Set(allowed.filter((o) => o !== LOOPBACK_ORIGINS));
  const loopback = allowed.includes(LOOPBACK_ORIGINS);
  return (origin) => exact.has(origin) || (loopback && isLoopbackOrigin(origin));
}

function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    LOOPBACK_HOSTS.has(url.hostname) &&
    url.origin === origin
  );
}
