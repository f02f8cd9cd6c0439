import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  addressRefusal,
  bareHost,
  egressUrlRefusal,
  outOfRangePort,
  portRefusal,
} from '@brand/shared/egress';
import { AppError } from '@brand/shared/errors';
import { chatServiceOf, RELAY_POINTER } from './chatHosts';

/** Resolves a host name to every address it has (injectable, so tests need no DNS). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlPolicyOptions {
  allowLoopback: boolean;
  resolve: Resolver;
}

const MAX_URL_LENGTH = 2048;

const refuse = (message: string): AppError =>
  new AppError('validation_failed', `url: ${message}`, {
    details: [{ field: 'url', message }],
  });

/**
 * The URL rules that need no network (docs/contract.md#receiver-urls): the egress rules every
 * request made on a tenant's say-so follows (@brand/shared/egress urlRules.ts: https only, no
 * credentials, the port policy, a literal IP address allowed by the address policy, no
 * loopback name), then no team-chat incoming-webhook host. Returns the parsed URL; throws
 * AppError validation_failed naming the rule broken.
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
  const why = egressUrlRefusal(url, { allowLoopback });
  if (why) {
    throw refuse(
      why.rule === 'credentials' ? `${why.message}; authenticate by the signature` : why.message,
    );
  }
  const chat = chatServiceOf(url);
  if (chat)
    throw refuse(`is a ${chat} incoming webhook, which cannot verify events; ${RELAY_POINTER}`);
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
  // One refusal for a name that resolves to an address that is not allowed and for one that
  // does not resolve: neither the address nor its block, so an owner cannot tell which internal
  // names exist, nor where (reviews, 2026-11-29 and 2026-11-30).
  const notPublic = () => refuse(`the host name ${host} does not resolve to a public address`);
  let addresses: string[];
  try {
    addresses = await opts.resolve(host);
  } catch {
    throw notPublic();
  }
  if (addresses.length === 0) throw notPublic();
  if (addresses.some((address) => addressRefusal(address, opts.allowLoopback))) throw notPublic();
  return url;
}
