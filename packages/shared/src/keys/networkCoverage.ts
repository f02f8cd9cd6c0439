import ipaddr from 'ipaddr.js';

/** An address family as the refusal names it. */
export type AddressFamily = 'IPv4' | 'IPv6';

/**
 * The families whose every address canonical networks (readNetworks' entries) cover together:
 * `0.0.0.0/1` and `128.0.0.0/1` are all of IPv4 as surely as `0.0.0.0/0` is, and a list like that
 * binds a key to nothing (a review of 2026-11-30). Each network becomes a range of addresses; the
 * ranges of a family, sorted by start, are merged until a gap shows or the family's end is passed.
 * At most MAX_KEY_NETWORKS entries, so sorting costs nothing worth counting.
 */
export function fullyCoveredFamilies(networks: readonly string[]): AddressFamily[] {
  const ranges: Record<AddressFamily, Array<[bigint, bigint]>> = { IPv4: [], IPv6: [] };
  for (const n of networks) {
    const [addr, prefix] = n.includes('/')
      ? ipaddr.parseCIDR(n)
      : [ipaddr.parse(n), n.includes(':') ? 128 : 32];
    const bits = addr.kind() === 'ipv4' ? 32 : 128;
    const start = addr.toByteArray().reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
    const end = start + (1n << BigInt(bits - prefix)) - 1n;
    ranges[addr.kind() === 'ipv4' ? 'IPv4' : 'IPv6'].push([start, end]);
  }
  const covered: AddressFamily[] = [];
  for (const [family, bits] of [
    ['IPv4', 32n],
    ['IPv6', 128n],
  ] as const) {
    if (coversAll(ranges[family], 1n << bits)) covered.push(family);
  }
  return covered;
}

/** Whether ranges (inclusive ends) leave no address below `size` out. */
function coversAll(ranges: Array<[bigint, bigint]>, size: bigint): boolean {
  const sorted = [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let next = 0n; // the lowest address not covered so far
  for (const [start, end] of sorted) {
    if (start > next) return false;
    if (end + 1n > next) next = end + 1n;
    if (next >= size) return true;
  }
  return false;
}
