import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** The addresses a records target names now, each a grpc-js target of one replica. */
export type ResolveAddresses = () => Promise<string[]>;

/**
 * Every replica behind a gRPC target, as grpc-js's own resolver would find them, so the page
 * streams can be spread over all of them (a channel's round robin balances calls, but a
 * long-lived stream sticks to the replica it started on):
 * - `ipv4:a:p,b:p` and `ipv6:[a]:p,...`: the listed addresses, fixed;
 * - `dns:///host:port`, `dns:host:port` or `host:port`: every address the name resolves to
 *   now (a Kubernetes headless Service resolves to one per ready pod), looked up again on
 *   each call, so a replica added by a scale-up is found at the next resolution;
 * - an IP literal, or a scheme this does not know (`unix:`), is one address as given.
 * A lookup that fails throws; the pool then keeps the addresses it had.
 */
export function serviceAddresses(target: string): ResolveAddresses {
  const fixed = fixedAddresses(target);
  if (fixed !== undefined) return () => Promise.resolve(fixed);
  const { host, port } = splitHostPort(target.replace(/^dns:(\/\/[^/]*\/)?/, ''));
  return async () => {
    const found = await lookup(host, { all: true });
    const addresses = found.map((a) =>
      a.family === 6 ? `ipv6:[${a.address}]:${port}` : `ipv4:${a.address}:${port}`,
    );
    return [...new Set(addresses)].sort();
  };
}

function fixedAddresses(target: string): string[] | undefined {
  const scheme = /^(ipv4|ipv6):(.*)$/.exec(target);
  if (scheme) {
    const [, family, list] = scheme as unknown as [string, string, string];
    return list
      .split(',')
      .filter((a) => a !== '')
      .map((a) => `${family}:${a}`);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('dns:')) {
    // host:port also matches the pattern above; only an unknown scheme lands here
    if (!/^[^:]+:\d+$/.test(target)) return [target];
  }
  const { host } = splitHostPort(target.replace(/^dns:(\/\/[^/]*\/)?/, ''));
  return isIP(host.replace(/^\[|\]$/g, '')) === 0 ? undefined : [target];
}

/** `host:port`, `[v6]:port`; the port defaults to gRPC's 443 as grpc-js's does. */
function splitHostPort(hostPort: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '443' };
  const colon = hostPort.lastIndexOf(':');
  if (colon === -1 || hostPort.indexOf(':') !== colon) return { host: hostPort, port: '443' };
  return { host: hostPort.slice(0, colon), port: hostPort.slice(colon + 1) };
}
