import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './addressPolicy';

/** The error a connection fails with when its host resolves to a refused address. */
export class BlockedAddressError extends Error {
  override readonly name = BlockedAddressError.name;
  readonly code = 'EBLOCKEDADDRESS';
}

/** The refusal of a host name whose addresses are not all allowed, in words that name none. */
export const notPublic = (hostname: string): BlockedAddressError =>
  new BlockedAddressError(`${hostname} does not resolve to a public address`);

type Resolve = (
  hostname: string,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: Resolve = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for the sockets that deliveries and identity-provider requests connect through:
 * it resolves the name, refuses the connection when ANY address is not allowed
 * (addressRefusal), and hands the socket only the addresses it checked, so the connection goes
 * to a checked address (pinned) and a DNS answer that changes between check and connect
 * cannot slip a private address in. Node does not call lookup for IP literals: the caller
 * checks those itself (egressUrlRefusal).
 */
export function pinnedLookup(
  allowLoopback: boolean,
  resolve: Resolve = systemResolve,
): LookupFunction {
  return (hostname, options, callback) => {
    if (allowLoopback === false && hostname.toLowerCase() === 'localhost') {
      callback(new BlockedAddressError(`${hostname} is a loopback name`), '', 0);
      return;
    }
    resolve(hostname, (err, found) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      if (found.some((a) => addressRefusal(a.address, allowLoopback))) {
        // neither the address nor its block: the attempt's error is shown to the brand's
        // owners, who must not map internal names by it (reviews, 2026-11-29 and 2026-11-30)
        callback(notPublic(hostname), '', 0);
        return;
      }
      const usable = found.filter((a) => !options.family || a.family === options.family);
      if (usable.length === 0) {
        const none: NodeJS.ErrnoException = new Error(`${hostname} has no usable address`);
        none.code = 'ENOTFOUND';
        callback(none, '', 0);
        return;
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
