import ipaddr from 'ipaddr.js';
import {
  coverageInWords,
  fullyCoveredFamilies,
  MAX_COVERAGE_PREFIX,
  networkCoverage,
  overlyBroadFamilies,
} from './networkCoverage';

/**
 * A key's allowed networks (issue 63): the IPv4 and IPv6 CIDRs a request with the key may come
 * from. Read here once for every writer (records, the console's form, brandctl), so a list is
 * stored in one canonical form, and compiled here for the gateway's check.
 */

/** At most this many networks per key: an allow list, not a routing table (Stripe caps alike). */
export const MAX_KEY_NETWORKS = 32;

/** The canonical list, or the first entry's problem in words (for a 4xx naming it). */
export type NetworksReading = { networks: string[] } | { error: string };

/**
 * Reads networks as people write them: `203.0.113.0/24`, `2001:db8::/32`, or a single address
 * (`203.0.113.7` is `/32`, an IPv6 address `/128`), separated by commas, spaces or new lines.
 * Refused with a sentence: anything else, IPv4 in other spellings than four decimal parts
 * (`0x7f.1` names an address no person meant), a network with host bits set (`10.0.0.1/8`:
 * the network is `10.0.0.0/8`, say so), IPv4 written as IPv6, mapped (`::ffff:1.2.3.4`) or
 * compatible (`::1.2.3.4`) (write IPv4 as IPv4: a mapped client is matched as IPv4), a zone,
 * `/0` (every address: leave the list empty instead), more than MAX_KEY_NETWORKS, a list
 * whose networks together cover every IPv4 or every IPv6 address (`0.0.0.0/1, 128.0.0.0/1`:
 * /0 in two parts), one that covers more than a /8's worth of IPv4 or a /16's worth of IPv6
 * in all (all of IPv4 but one address; why this bound: networkCoverage.ts), and a list given with items but no network in them (`['']`, `[',']`:
 * read as empty it meant any network, the opposite of what was sent). An empty list, or the
 * empty string, is no networks (any network). Duplicates are dropped; the order is kept.
 *
 * Either family covered is refused although the other may still be bound: a key whose list
 * admits every IPv4 client is not bound for the clients most requests come from, and would
 * satisfy a brand's "networks on every key" policy while binding nothing.
 */
export function readNetworks(input: string | readonly string[]): NetworksReading {
  const given = typeof input === 'string' ? (input === '' ? [] : [input]) : input;
  const items = given.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== '');
  const networks: string[] = [];
  for (const item of items) {
    const read = readNetwork(item);
    if ('error' in read) return read;
    if (!networks.includes(read.network)) networks.push(read.network);
  }
  if (given.length > 0 && networks.length === 0) {
    return {
      error:
        'the list names no network, only blanks or separators; give networks (e.g. 203.0.113.0/24), or an empty list to allow any network.',
    };
  }
  if (networks.length > MAX_KEY_NETWORKS) {
    return { error: `at most ${MAX_KEY_NETWORKS} networks per key (${networks.length} given).` };
  }
  const coverage = networkCoverage(networks);
  const covered = fullyCoveredFamilies(coverage);
  if (covered.length > 0) {
    return {
      error: `these networks together cover every ${covered.join(' and every ')} address, so they bind the key to nothing; give narrower networks, or leave the list empty to allow any network.`,
    };
  }
  const broad = overlyBroadFamilies(coverage);
  if (broad.length > 0) {
    const { IPv4, IPv6 } = MAX_COVERAGE_PREFIX;
    return {
      error: `these networks together cover ${broad.map((f) => coverageInWords(f, coverage[f])).join(' and ')}; a key's networks may cover at most a /${IPv4}'s worth of IPv4 (16,777,216 addresses) and a /${IPv6}'s worth of IPv6 in all, so that they bind it to networks of your own: give narrower networks, or leave the list empty to allow any network.`,
    };
  }
  return { networks };
}

function readNetwork(raw: string): { network: string } | { error: string } {
  const shown = JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);
  const slash = raw.indexOf('/');
  const host = slash === -1 ? raw : raw.slice(0, slash);
  const prefixText = slash === -1 ? undefined : raw.slice(slash + 1);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) addr = ipaddr.IPv4.parse(host);
  else if (ipaddr.IPv6.isValid(host) && !host.includes('%')) {
    const v6 = ipaddr.IPv6.parse(host);
    // ipaddr.js reads IPv4-compatible `::1.2.3.4` as mapped, but `::0:1.2.3.4` as ::102:304:
    // a dotted tail after 96 zero bits is IPv4 meant all the same
    const compatible = host.includes('.') && v6.parts.slice(0, 6).every((p) => p === 0);
    if (v6.isIPv4MappedAddress() || compatible) {
      return {
        error: `${shown} is IPv4 written as IPv6 (IPv4-mapped ::ffff:a.b.c.d or IPv4-compatible ::a.b.c.d): write the IPv4 network instead.`,
      };
    }
    addr = v6;
  } else {
    return {
      error: `${shown} is not an IPv4 or IPv6 address or network (e.g. 203.0.113.0/24, 2001:db8::/32).`,
    };
  }
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
      return { error: `${shown} has no valid prefix length (0 to ${bits}).` };
    }
    prefix = Number(prefixText);
  }
  if (prefix === 0) {
    return { error: `${shown} is every address; leave the list empty to allow any network.` };
  }
  const network = networkOf(addr, prefix);
  if (network.toString() !== addr.toString()) {
    return {
      error: `${shown} has host bits set: the network is ${network.toString()}/${prefix}.`,
    };
  }
  return { network: prefix === bits ? addr.toString() : `${addr.toString()}/${prefix}` };
}

function networkOf(addr: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): ipaddr.IPv4 | ipaddr.IPv6 {
  const cidr = `${addr.toString()}/${prefix}`;
  return addr.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(cidr)
    : ipaddr.IPv6.networkAddressFromCIDR(cidr);
}

/** Whether a client address is inside a key's networks (the gateway's check). */
export type NetworkMatcher = (clientAddress: string | undefined) => boolean;

/**
 * Compiles canonical networks (readNetworks' output, as records stores them) once, when the
 * gateway caches a key, so each request costs a few integer comparisons: an IPv4 client (the
 * usual case, and an IPv4-mapped IPv6 one, `::ffff:203.0.113.7`, how a dual-stack socket reports
 * IPv4 peers) is read by hand into 32 bits, about 50 ns, where ipaddr.js takes about a
 * microsecond; an IPv6 client is parsed by ipaddr.js (1-7 µs: rarer, and only for keys with
 * networks). An address that cannot be read matches nothing, nor does one with a leading zero
 * in a part, nor an entry that cannot be read.
 */
export function compileNetworks(networks: readonly string[]): NetworkMatcher {
  const v4: Array<{ net: number; mask: number }> = [];
  const v6: Array<[ipaddr.IPv6, number]> = [];
  for (const n of networks) {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    let prefix: number;
    try {
      [addr, prefix] = n.includes('/')
        ? ipaddr.parseCIDR(n)
        : [ipaddr.parse(n), n.includes(':') ? 128 : 32];
    } catch {
      // Not what records writes (the database checks only the list's length): it matches
      // nothing, so a key whose every entry is unreadable is refused everywhere, never a 500.
      continue;
    }
    if (addr.kind() === 'ipv4') {
      const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
      v4.push({ net: (ipv4Number(addr.toString(), 0) & mask) >>> 0, mask });
    } else v6.push([addr as ipaddr.IPv6, prefix]);
  }
  return (clientAddress) => {
    if (clientAddress === undefined) return false;
    const mapped = MAPPED.test(clientAddress) ? ipv4Number(clientAddress, 7) : -1;
    const client = mapped >= 0 ? mapped : ipv4Number(clientAddress, 0);
    if (client >= 0) {
      for (const { net, mask } of v4) if ((client & mask) >>> 0 === net) return true;
      return false;
    }
    if (v6.length === 0 || !clientAddress.includes(':')) return false;
    let parsed: ipaddr.IPv6;
    try {
      parsed = ipaddr.IPv6.parse(clientAddress);
    } catch {
      return false;
    }
    for (const range of v6) if (parsed.match(range)) return true;
    return false;
  };
}

/** An IPv4-mapped IPv6 address's prefix, in either case. */
const MAPPED = /^::ffff:/i;

/**
 * A dotted-quad IPv4 address (from `from` on) as an unsigned 32-bit number, or -1 for anything
 * else: four decimal parts of 0 to 255, as sockets and proxies write client addresses.
 */
function ipv4Number(s: string, from: number): number {
  let n = 0;
  let part = -1;
  let dots = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (part < 0 || dots === 3) return -1;
      n = n * 256 + part;
      part = -1;
      dots++;
    } else if (c >= 48 && c <= 57) {
      // a leading zero is refused: proxy-addr reads 010 as octal 8, so the address its trust
      // rules judged would not be the one matched here
      if (part === 0) return -1;
      part = part < 0 ? c - 48 : part * 10 + c - 48;
      if (part > 255) return -1;
    } else return -1;
  }
  return part < 0 || dots !== 3 ? -1 : n * 256 + part;
}
