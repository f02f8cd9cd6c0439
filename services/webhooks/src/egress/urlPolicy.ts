import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '@brand/shared/errors';
import { addressRefusal } from './addressPolicy';
import { chatServiceOf, RELAY_POINTER } from './chatHosts';
import { HTTPS_PORT, outOfRangePort, portRefusal } from './portPolicy';

/** Resolves a host name to every address it has (injectable, so tests need no DNS). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlPolicyOptions {
  allowLoopback: boolean;
  resolve: Resolver;
}

const MAX_URL_LENGTH = 2048;

/** The host of a parsed URL without IPv6 brackets or a trailing dot. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

const refuse = (message: string): AppError =>
  new AppError('validation_failed', `url: ${message}`, {
    details: [{ field: 'url', message }],
  });

/**
 * The URL rules that need no network (docs/contract.md#receiver-urls): https only, no credentials,
 * the port policy (portPolicy.ts), no team-chat incoming-webhook host, and a literal IP
 * address must be allowed by the address policy (addressPolicy.ts). The WHATWG parser
 * already turns decimal, hex, octal and short IPv4 forms (https://2130706433/,
 * https://0x7f.1/, https://127.1/) into dotted quads and IPv6 into its compressed form, and
 * refuses zone ids, so each is judged as the address it names. Returns the parsed URL;
 * throws AppError validation_failed naming the rule broken.
 */
export function checkUrlShape(raw: string, allowLoopback: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw refuse(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    const port = outOfRangePort(raw);
    throw refuse(port === undefined ? 'is not a valid URL' : portRefusal(port)!);
  }
  if (url.protocol !== 'https:')
    throw refuse('must use https (http and other schemes are refused)');
  if (url.username !== '' || url.password !== '')
    throw refuse('must not contain credentials (user:password@); authenticate by the signature');
  // The parser leaves the port empty for https's default, 443.
  const portWhy = portRefusal(url.port === '' ? HTTPS_PORT : Number(url.port));
  if (portWhy) throw refuse(portWhy);
  const chat = chatServiceOf(url);
  if (chat)
    throw refuse(`is a ${chat} incoming webhook, which cannot verify events; ${RELAY_POINTER}`);
  const host = bareHost(url);
  if (host === '') throw refuse('has no host');
  if (isIP(host) !== 0) {
    const why = addressRefusal(host, allowLoopback);
    if (why) throw refuse(`${host} ${why}`);
  } else if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) {
    if (!allowLoopback || host.toLowerCase() !== 'localhost')
      throw refuse(`${host} is a loopback name`);
  }
  return url;
}

/**
 * Every URL rule, as applied at registration: the shape rules, then the host name is
 * resolved and every address it has must be allowed (a name pointing at a private address
 * is refused). Connections are checked again at connect time (pinnedLookup), since DNS
 * can change after registration.
 */
export async function checkReceiverUrl(raw: string, opts: UrlPolicyOptions): Promise<URL> {
  const url = checkUrlShape(raw, opts.allowLoopback);
  const host = bareHost(url);
  if (isIP(host) !== 0) return url;
  let addresses: string[];
  try {
    addresses = await opts.resolve(host);
  } catch {
    throw refuse(`the host name ${host} does not resolve`);
  }
  if (addresses.length === 0) throw refuse(`the host name ${host} does not resolve`);
  for (const address of addresses) {
    const why = addressRefusal(address, opts.allowLoopback);
    if (why) throw refuse(`${host} resolves to ${address}, which ${why}`);
  }
  return url;
}
