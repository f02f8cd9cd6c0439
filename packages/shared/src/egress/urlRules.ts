import { isIP } from 'node:net';
import { addressRefusal } from './addressPolicy';
import { HTTPS_PORT, portRefusal } from './portPolicy';

/** What a caller's deployment admits beyond public https (both off in production). */
export interface EgressOptions {
  /**
   * The local-only setting (WEBHOOK_ALLOW_LOOPBACK_RECEIVERS, refused in production): admit
   * exactly 127.0.0.1, ::1 and the name localhost. Tests and the local stack only.
   */
  allowLoopback: boolean;
  /**
   * With allowLoopback, a loopback target may also be plain http: the local identity provider
   * serves http on 127.0.0.1 (receivers stay https everywhere, so webhooks never sets it).
   */
  loopbackHttp?: boolean;
}

/** The host of a parsed URL without IPv6 brackets or a trailing dot. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

const isLoopbackName = (host: string): boolean =>
  host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost');

/** Whether a URL names a loopback host (127.0.0.0/8, ::1, a localhost name). */
export function namesLoopback(url: URL): boolean {
  const host = bareHost(url);
  if (isLoopbackName(host)) return true;
  return (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
}

/** Which rule refused a URL, so a caller can add its own advice, and the sentence. */
export interface EgressRefusal {
  rule: 'scheme' | 'credentials' | 'port' | 'host' | 'address' | 'loopback_name';
  /** Completes "The URL ...", e.g. "must use https (http and other schemes are refused)". */
  message: string;
}

/**
 * Why a URL may not be the target of a request made on a tenant's say-so (a webhook receiver,
 * an identity provider and every endpoint its discovery names), or undefined when it may.
 * The rules that need no network: https only, no credentials, the port policy (portPolicy.ts),
 * a host, and a literal IP address allowed by the address policy (addressPolicy.ts); the
 * WHATWG parser already turned decimal, hex, octal and short IPv4 forms into dotted quads and
 * IPv6 into its compressed form, so each is judged as the address it names. Names are judged
 * again at connect time by pinnedLookup, since DNS can change.
 */
export function egressUrlRefusal(url: URL, opts: EgressOptions): EgressRefusal | undefined {
  const plainHttpAdmitted =
    url.protocol === 'http:' &&
    opts.allowLoopback &&
    opts.loopbackHttp === true &&
    namesLoopback(url);
  if (url.protocol !== 'https:' && !plainHttpAdmitted)
    return { rule: 'scheme', message: 'must use https (http and other schemes are refused)' };
  if (url.username !== '' || url.password !== '')
    return { rule: 'credentials', message: 'must not contain credentials (user:password@)' };
  // The parser leaves the port empty for the scheme's default.
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : HTTPS_PORT) : Number(url.port);
  const portWhy = plainHttpAdmitted && port === 80 ? undefined : portRefusal(port);
  if (portWhy) return { rule: 'port', message: portWhy };
  const host = bareHost(url);
  if (host === '') return { rule: 'host', message: 'has no host' };
  if (isIP(host) !== 0) {
    const why = addressRefusal(host, opts.allowLoopback, 'literal');
    return why ? { rule: 'address', message: `${host} ${why}` } : undefined;
  }
  if (isLoopbackName(host) && (!opts.allowLoopback || host.toLowerCase() !== 'localhost'))
    return { rule: 'loopback_name', message: `${host} is a loopback name` };
  return undefined;
}
