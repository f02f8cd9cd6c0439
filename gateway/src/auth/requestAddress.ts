import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/** The client address of a request, as the per-address budget counts it. */
export type AddressOf = (req: IncomingMessage) => string | undefined;

/**
 * The client address under a "trust proxy" setting (TRUST_PROXY, read by trustProxySetting),
 * exactly as express's `req.ip` computes it, for requests no express application handles:
 * the socket peer, or, through trusted proxies, the nearest untrusted X-Forwarded-For entry.
 * `true` trusts every hop, a number that many hops, a list those addresses or CIDRs.
 */
export function clientAddressOf(trust: boolean | number | string[]): AddressOf {
  const trusted =
    trust === true
      ? () => true
      : typeof trust === 'number'
        ? (_addr: string, hop: number) => hop < trust
        : proxyAddr.compile(trust === false ? [] : trust);
  return (req) => proxyAddr(req, trusted);
}
