import { isIP } from 'node:net';

/** Hosts that are this machine: a local identity provider may serve plain HTTP there only. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether an issuer URL names a loopback host (127.0.0.0/8, ::1, localhost). */
export function isLoopbackIssuer(url: URL): boolean {
  if (LOOPBACK_NAMES.has(url.hostname)) return true;
  return isIP(url.hostname) === 4 && url.hostname.startsWith('127.');
}

/**
 * An issuer as owners may connect it: an absolute https URL without query, fragment or
 * credentials, or http on a loopback host (a provider on the same machine: the local stack
 * and the tests). Anything else is refused with a sentence for the form; the normalised
 * issuer (no trailing slash added or removed: the issuer must match the provider's own
 * "issuer" exactly) otherwise.
 */
export function checkIssuer(
  raw: string,
): { ok: true; issuer: string; url: URL } | { ok: false; message: string } {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'The issuer must be a URL such as https://login.example.com.' };
  }
  if (text.length > 512) return { ok: false, message: 'The issuer is at most 512 characters.' };
  if (url.username || url.password || url.search || url.hash) {
    return { ok: false, message: 'The issuer has no credentials, query or fragment.' };
  }
  if (url.protocol === 'https:') return { ok: true, issuer: text, url };
  if (url.protocol === 'http:' && isLoopbackIssuer(url)) return { ok: true, issuer: text, url };
  return {
    ok: false,
    message: 'The issuer must use https (plain http only for a provider on this machine).',
  };
}
