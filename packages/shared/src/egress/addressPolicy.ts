import ipaddr from 'ipaddr.js';
import {
  IPV4_SPECIAL_PURPOSE,
  IPV6_GLOBAL_UNICAST,
  IPV6_SPECIAL_PURPOSE,
  OTHER_REFUSED_BLOCKS,
  type SpecialBlock,
} from './specialPurposeRegistry';

/**
 * Metadata services on addresses the registries call globally reachable (or that deserve a
 * clearer reason): Azure's wire server, Alibaba's and AWS's metadata endpoints.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '168.63.129.16',
  '100.100.100.200',
  'fd00:ec2::254',
]);

/** The only loopback addresses the local-only setting (WEBHOOK_ALLOW_LOOPBACK_RECEIVERS) admits. */
const LOOPBACK_ADMITTED = new Set(['127.0.0.1', '::1']);

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

interface Block extends SpecialBlock {
  range: [Parsed, number];
}

/** Most specific first, so the first block that holds an address is the one that decides. */
function compile(table: readonly SpecialBlock[]): Block[] {
  return table
    .map((b) => ({ ...b, range: ipaddr.parseCIDR(b.block) }))
    .sort((a, b) => b.range[1] - a.range[1]);
}

const IPV4_BLOCKS = compile(IPV4_SPECIAL_PURPOSE);
const IPV6_BLOCKS = compile(IPV6_SPECIAL_PURPOSE);
const OTHER_BLOCKS = compile(OTHER_REFUSED_BLOCKS);
const GLOBAL_UNICAST = ipaddr.parseCIDR(IPV6_GLOBAL_UNICAST);

const holding = (ip: Parsed, blocks: Block[]): Block | undefined =>
  blocks.find((b) => b.range[0].kind() === ip.kind() && ip.match(b.range));

const describe = (b: Block): string => `${b.name}, ${b.block} (${b.rfc})`;

/**
 * Every special-purpose block is refused. Most are not globally reachable; the few that are
 * (PCP, TURN and DNS-SD anycast, AS112, AMT, ORCHIDv2 and DET identifiers) are protocol
 * services answered by whichever server is nearest, or identifiers that route nowhere:
 * never a brand's receiver. Only NAT64 and 6to4 are judged otherwise, by the address they embed.
 */
function specialRefusal(b: Block): string {
  return b.globallyReachable === true
    ? `is a special-purpose address, not a host's: ${describe(b)}`
    : `is not a public address: ${describe(b)}`;
}

/**
 * IPv6 blocks that carry an IPv4 address the traffic really goes to: the well-known NAT64
 * prefix (DNS64 networks synthesise these for IPv4-only hosts) and 6to4. Judged by the IPv4
 * address inside, so 64:ff9b::7f00:1 is loopback and 64:ff9b::5db8:d70e is public.
 */
const EMBEDDING: Array<{ block: Block; ipv4At: (bytes: number[]) => number[] }> = [
  { block: IPV6_BLOCKS.find((b) => b.block === '64:ff9b::/96')!, ipv4At: (x) => x.slice(12, 16) },
  { block: IPV6_BLOCKS.find((b) => b.block === '2002::/16')!, ipv4At: (x) => x.slice(2, 6) },
];

/**
 * Why an address may not be connected to on a tenant's say-so (a webhook receiver, an identity
 * provider and its endpoints), or undefined when it may (issues 19 and 42). Allowed
 * only if no block of the IANA special-purpose registries holds it (specialPurposeRegistry.ts:
 * a block not globally reachable is refused, and so are the few that are, see
 * specialRefusal), it is not multicast, and, for IPv6, it is in global unicast 2000::/3.
 * NAT64 (64:ff9b::/96) and 6to4 are judged by the IPv4 address they embed,
 * IPv4-mapped IPv6 is always refused, a zone id (fe80::1%eth0) is refused. Cloud metadata
 * addresses are refused by name. With `allowLoopback` (tests only) exactly 127.0.0.1 and
 * ::1 are admitted. Any spelling ipaddr.js reads (octal, hex, short IPv4 forms, compressed
 * or IPv4-suffixed IPv6) is judged as the address it names; anything else is refused.
 *
 * The answer names no address unless `named` says the caller's own input is the address (an
 * IP literal in a URL): of what a name resolved to it names the block only, since the message
 * is shown to the brand's owners, who must not map internal names by it (reviews of 2026-11-29
 * and -30: an IPv4-mapped or NAT64 answer named the IPv4 address inside it).
 */
export function addressRefusal(
  address: string,
  allowLoopback: boolean,
  named: 'literal' | 'resolved' = 'resolved',
): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).zoneId !== undefined)
    return 'has a zone id: a scoped address is local to one link';
  const canonical = ip.toString();
  if (allowLoopback && LOOPBACK_ADMITTED.has(canonical)) return undefined;
  if (METADATA_ADDRESSES.has(canonical)) return 'is a cloud metadata address';
  return ip.kind() === 'ipv4'
    ? ipv4Refusal(ip as ipaddr.IPv4)
    : ipv6Refusal(ip as ipaddr.IPv6, named === 'literal');
}

function ipv4Refusal(ip: ipaddr.IPv4): string | undefined {
  const special = holding(ip, IPV4_BLOCKS) ?? holding(ip, OTHER_BLOCKS);
  return special ? specialRefusal(special) : undefined;
}

function ipv6Refusal(ip: ipaddr.IPv6, nameInner: boolean): string | undefined {
  if (ip.isIPv4MappedAddress()) {
    const inner = nameInner ? ` (${ip.toIPv4Address().toString()})` : '';
    return `is an IPv4-mapped IPv6 address${inner}; use the IPv4 address itself`;
  }
  const special = holding(ip, IPV6_BLOCKS);
  const embedding = EMBEDDING.find((e) => e.block === special);
  if (embedding) {
    const inner = new ipaddr.IPv4(embedding.ipv4At(ip.toByteArray()));
    const why = addressRefusal(inner.toString(), false);
    if (!why) return undefined;
    return nameInner
      ? `embeds ${inner.toString()} (${describe(special!)}), which ${why}`
      : `embeds an IPv4 address (${describe(special!)}) that ${why}`;
  }
  if (special) return specialRefusal(special);
  const other = holding(ip, OTHER_BLOCKS);
  if (other) return specialRefusal(other);
  if (!ip.match(GLOBAL_UNICAST))
    return `is not a public address: outside global unicast ${IPV6_GLOBAL_UNICAST} (RFC 4291)`;
  return undefined;
}
