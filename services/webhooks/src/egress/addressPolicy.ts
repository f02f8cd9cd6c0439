import ipaddr from 'ipaddr.js';

/**
 * Metadata services that sit on addresses ipaddr.js classifies as ordinary unicast (or that
 * deserve a clearer reason): Azure's wire server, Alibaba's and AWS's metadata endpoints.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '168.63.129.16',
  '100.100.100.200',
  'fd00:ec2::254',
]);

/** The only addresses WEBHOOK_ALLOW_LOOPBACK_RECEIVERS admits. */
const LOOPBACK_ADMITTED = new Set(['127.0.0.1', '::1']);

/**
 * Why an address may not receive deliveries, or undefined when it may. Only public
 * unicast is allowed: loopback, private, link-local, CGNAT, multicast, unspecified,
 * reserved, metadata, IPv4-mapped IPv6 and the other IPv6 ranges that embed an IPv4
 * address (NAT64, 6to4, Teredo) are refused. With `allowLoopback` (tests only) exactly
 * 127.0.0.1 and ::1 are admitted. A string that is not an IP address is refused.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  const ip = ipaddr.parse(address);
  const normal = ip.toNormalizedString();
  const canonical = ip.kind() === 'ipv6' ? ipaddr.IPv6.parse(address).toString() : normal;
  if (allowLoopback && LOOPBACK_ADMITTED.has(canonical)) return undefined;
  if (METADATA_ADDRESSES.has(canonical)) return 'is a cloud metadata address';
  const range = ip.range();
  if (ip.kind() === 'ipv6' && range === 'ipv4Mapped') return 'is an IPv4-mapped IPv6 address';
  if (range !== 'unicast') return `is not a public address (${range})`;
  return undefined;
}
