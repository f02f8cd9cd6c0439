import ipaddr from 'ipaddr.js';

/**
 * The budget key for a client address: an IPv4 address as is (IPv4-mapped IPv6 included),
 * an IPv6 address by its /64, since one host commonly owns a whole /64 and could rotate
 * through it to dodge a per-address limit.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
