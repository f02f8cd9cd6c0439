/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries (iana-ipv4-special-registry,
 * iana-ipv6-special-registry; RFC 6890 defines them), as data: block, name as IANA spells
 * it, the RFCs, and the "Globally Reachable" column. The URL policy allows an address only
 * if the most specific block that holds it is globally reachable (issue 19): deciding from
 * the registries, not from a list of forms someone thought of. `'n/a'` is the registry's
 * own "N/A" (6to4, Teredo, the deprecated 6to4 relay anycast): no receiver lives there, so
 * it is refused, except where an embedding rule judges the IPv4 address inside instead
 * (addressPolicy.ts).
 *
 * Keep in step with the registries (a block added there is refused here only once added);
 * the blocks outside them that are never a unicast receiver are OTHER_REFUSED_BLOCKS below.
 */
export interface SpecialBlock {
  block: string;
  name: string;
  rfc: string;
  globallyReachable: boolean | 'n/a';
}

export const IPV4_SPECIAL_PURPOSE: readonly SpecialBlock[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791', globallyReachable: false },
  {
    block: '0.0.0.0/32',
    name: '"This host on this network"',
    rfc: 'RFC 1122',
    globallyReachable: false,
  },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  {
    block: '100.64.0.0/10',
    name: 'Shared Address Space (CGNAT)',
    rfc: 'RFC 6598',
    globallyReachable: false,
  },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122', globallyReachable: false },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', globallyReachable: false },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  {
    block: '192.0.0.0/24',
    name: 'IETF Protocol Assignments',
    rfc: 'RFC 6890',
    globallyReachable: false,
  },
  {
    block: '192.0.0.0/29',
    name: 'IPv4 Service Continuity Prefix',
    rfc: 'RFC 7335',
    globallyReachable: false,
  },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', globallyReachable: false },
  {
    block: '192.0.0.9/32',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    globallyReachable: true,
  },
  {
    block: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
  },
  {
    block: '192.0.0.170/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050',
    globallyReachable: false,
  },
  {
    block: '192.0.0.171/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050',
    globallyReachable: false,
  },
  {
    block: '192.0.2.0/24',
    name: 'Documentation (TEST-NET-1)',
    rfc: 'RFC 5737',
    globallyReachable: false,
  },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', globallyReachable: true },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  {
    block: '192.88.99.0/24',
    name: 'Deprecated (6to4 Relay Anycast)',
    rfc: 'RFC 7526',
    globallyReachable: 'n/a',
  },
  {
    block: '192.88.99.2/32',
    name: '6a44-relay anycast address',
    rfc: 'RFC 6751',
    globallyReachable: false,
  },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', globallyReachable: false },
  {
    block: '192.175.48.0/24',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
  },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', globallyReachable: false },
  {
    block: '198.51.100.0/24',
    name: 'Documentation (TEST-NET-2)',
    rfc: 'RFC 5737',
    globallyReachable: false,
  },
  {
    block: '203.0.113.0/24',
    name: 'Documentation (TEST-NET-3)',
    rfc: 'RFC 5737',
    globallyReachable: false,
  },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112', globallyReachable: false },
  {
    block: '255.255.255.255/32',
    name: 'Limited Broadcast',
    rfc: 'RFC 8190, RFC 919',
    globallyReachable: false,
  },
];

export const IPV6_SPECIAL_PURPOSE: readonly SpecialBlock[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', globallyReachable: false },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', globallyReachable: false },
  {
    block: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    rfc: 'RFC 4291',
    globallyReachable: false,
  },
  {
    block: '64:ff9b::/96',
    name: 'IPv4-IPv6 Translation',
    rfc: 'RFC 6052',
    globallyReachable: true,
  },
  {
    block: '64:ff9b:1::/48',
    name: 'Local-use IPv4/IPv6 Translation',
    rfc: 'RFC 8215',
    globallyReachable: false,
  },
  {
    block: '100::/64',
    name: 'Discard-Only Address Block',
    rfc: 'RFC 6666',
    globallyReachable: false,
  },
  {
    block: '2001::/23',
    name: 'IETF Protocol Assignments',
    rfc: 'RFC 2928',
    globallyReachable: false,
  },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', globallyReachable: 'n/a' },
  {
    block: '2001:1::1/128',
    name: 'Port Control Protocol Anycast',
    rfc: 'RFC 7723',
    globallyReachable: true,
  },
  {
    block: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
  },
  {
    block: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    rfc: 'RFC 9665',
    globallyReachable: true,
  },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180', globallyReachable: false },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', globallyReachable: true },
  {
    block: '2001:10::/28',
    name: 'Deprecated (previously ORCHID)',
    rfc: 'RFC 4843',
    globallyReachable: false,
  },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', globallyReachable: true },
  {
    block: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    globallyReachable: true,
  },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', globallyReachable: false },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', globallyReachable: 'n/a' },
  {
    block: '2620:4f:8000::/48',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
  },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', globallyReachable: false },
  {
    block: '5f00::/16',
    name: 'Segment Routing (SRv6) SIDs',
    rfc: 'RFC 9602',
    globallyReachable: false,
  },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', globallyReachable: false },
  {
    block: 'fe80::/10',
    name: 'Link-Local Unicast',
    rfc: 'RFC 4291',
    globallyReachable: false,
  },
];

/**
 * Blocks outside the special-purpose registries that are never a unicast receiver: the
 * multicast spaces, and the IPv6 space outside global unicast 2000::/3 (the IANA IPv6
 * Address Space registry reserves it), named where a form is known: IPv4-compatible
 * (::/96, deprecated) and site-local (fec0::/10, deprecated). Checked after the registries.
 */
export const OTHER_REFUSED_BLOCKS: readonly SpecialBlock[] = [
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', globallyReachable: false },
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', globallyReachable: false },
  {
    block: '::/96',
    name: 'IPv4-compatible IPv6 Address (deprecated)',
    rfc: 'RFC 4291 2.5.5.1',
    globallyReachable: false,
  },
  {
    block: 'fec0::/10',
    name: 'Site-Local (deprecated)',
    rfc: 'RFC 3879',
    globallyReachable: false,
  },
];

/** The only IPv6 space with unicast receivers (IANA IPv6 Address Space: Global Unicast). */
export const IPV6_GLOBAL_UNICAST = '2000::/3';
