import { isIP } from 'node:net';
import { egressUrlRefusal } from '@brand/shared/egress';
import type { ProviderPolicy } from './provider/providerPolicy';

/** Hosts that are this machine: a local identity provider may serve plain HTTP there only. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether an issuer URL names a loopback host (127.0.0.0/8, ::1, localhost). */
export function isLoopbackIssuer(url: URL): boolean {
  if (LOOPBACK_NAMES.has(url.hostname)) return true;
  return isIP(url.hostname) === 4 && url.hostname.startsWith('127.');
}

/**
 * An issuer as owners may connect it: an absolute URL without query, fragment or credentials
 * that passes the egress policy of every request made on a tenant's say-so (https to a public
 * address on an allowed port; a provider on loopback, over plain http too, only with the
 * local-only setting: the local stack and the tests). Decided from the URL alone, before any
 * request, so a private or unreachable address costs no connection and answers no slower than
 * any other refusal. Anything else is refused with a sentence for the form; the normalised
 * issuer (no trailing slash added or removed: the issuer must match the provider's own
 * "issuer" exactly) otherwise. Names are judged again when connecting (the pinned lookup).
 */
export function checkIssuer(
  raw: string,
  policy: Pick<ProviderPolicy, 'allowLoopback'>,
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
  const why = egressUrlRefusal(url, { allowLoopback: policy.allowLoopback, loopbackHttp: true });
  if (why) {
    return {
      ok: false,
      message:
        why.rule === 'scheme'
          ? 'The issuer must use https (plain http only for a provider on this machine, in a local stack).'
          : `The issuer ${why.message}.`,
    };
  }
  return { ok: true, issuer: text, url };
}
