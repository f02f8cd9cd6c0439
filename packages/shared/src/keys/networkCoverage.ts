import ipaddr from 'ipaddr.js';

/** An address family as the refusal names it. */
export type AddressFamily = 'IPv4' | 'IPv6';

const BITS: Record<AddressFamily, number> = { IPv4: 32, IPv6: 128 };

/**
 * The most a key's networks may cover together, per family, as the prefix of one network that
 * large: a /8's worth of IPv4 (16,777,216 addresses, 1/256 of IPv4) and a /16's worth of IPv6.
 *
 * Why a bound on the union and not only on each entry (a review of 2026-11-30 found all of IPv4
 * but one address stored, satisfying the brand's "networks on every key" policy while binding
 * nothing worth the name): a minimum prefix per entry still lets 32 entries add up to an eighth
 * of IPv4, and the owner who binds a key to their provider's egress needs several large blocks
 * (a few /12s and /15s), which a per-entry rule of /16 or longer would refuse. What the policy
 * promises is that a leaked key is refused from most of the Internet, and that is a statement
 * about the union. A /8 is the largest block anyone is allocated in one piece (10.0.0.0/8, the
 * legacy class A's such as 3.0.0.0/8): a key may be bound to that much and no more. IPv6 space
 * is sparse, and dynamic customer prefixes move within an ISP's block (allocations up to about a
 * /19), so IPv6 gets a /16's worth: any one provider's block, never a registry's /12 (IANA's
 * unit to the registries; a /16 such as 2001::/16 may still hold a few registries' /23s, so the
 * bound says "no more than a provider's", not "no registry"). All of RFC 1918 together (10/8, 172.16/12, 192.168/16) is over the bound:
 * name the ranges your servers use.
 */
export const MAX_COVERAGE_PREFIX: Record<AddressFamily, number> = { IPv4: 8, IPv6: 16 };

/** How much of each family canonical networks (readNetworks' entries) cover together. */
export type Coverage = Record<AddressFamily, bigint>;

/**
 * The addresses of each family canonical networks cover together: each network becomes a range,
 * and a family's ranges, sorted by start, are merged, so overlapping and nested entries count
 * once. At most MAX_KEY_NETWORKS entries, so sorting costs nothing worth counting.
 */
export function networkCoverage(networks: readonly string[]): Coverage {
  const ranges: Record<AddressFamily, Array<[bigint, bigint]>> = { IPv4: [], IPv6: [] };
  for (const n of networks) {
    const [addr, prefix] = n.includes('/')
      ? ipaddr.parseCIDR(n)
      : [ipaddr.parse(n), n.includes(':') ? 128 : 32];
    const family: AddressFamily = addr.kind() === 'ipv4' ? 'IPv4' : 'IPv6';
    const start = addr.toByteArray().reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
    ranges[family].push([start, start + (1n << BigInt(BITS[family] - prefix)) - 1n]);
  }
  return { IPv4: unionSize(ranges.IPv4), IPv6: unionSize(ranges.IPv6) };
}

/** The families whose every address the coverage includes (`0.0.0.0/1, 128.0.0.0/1`). */
export function fullyCoveredFamilies(coverage: Coverage): AddressFamily[] {
  return (['IPv4', 'IPv6'] as const).filter((f) => coverage[f] === 1n << BigInt(BITS[f]));
}

/** The families covered beyond MAX_COVERAGE_PREFIX's worth. */
export function overlyBroadFamilies(coverage: Coverage): AddressFamily[] {
  return (['IPv4', 'IPv6'] as const).filter(
    (f) => coverage[f] > 1n << BigInt(BITS[f] - MAX_COVERAGE_PREFIX[f]),
  );
}

/**
 * A family's coverage in words: IPv4 as a count (`4,294,967,295 IPv4 addresses`), IPv6 as the
 * prefix of one network that large (`over a /16's worth of IPv6 addresses`), its counts having
 * up to 39 digits.
 */
export function coverageInWords(family: AddressFamily, size: bigint): string {
  if (family === 'IPv4') return `${String(size).replace(/\B(?=(\d{3})+$)/g, ',')} IPv4 addresses`;
  const log2 = size.toString(2).length - 1;
  const exact = size === 1n << BigInt(log2);
  return `${exact ? '' : 'over '}a /${BITS[family] - log2}'s worth of IPv6 addresses`;
}

/** The addresses ranges (inclusive ends) cover together. */
function unionSize(ranges: Array<[bigint, bigint]>): bigint {
  const sorted = [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let total = 0n;
  let next = 0n; // the lowest address above every range counted so far
  for (const [start, end] of sorted) {
    const from = start > next ? start : next;
    if (end >= from) total += end - from + 1n;
    if (end + 1n > next) next = end + 1n;
  }
  return total;
}
