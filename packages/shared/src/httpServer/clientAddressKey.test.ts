import { clientAddressKey } from './clientAddressKey';

describe('clientAddressKey', () => {
  it('keeps IPv4 addresses, including IPv4-mapped IPv6', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('groups IPv6 by /64, so rotating within a /64 does not escape the limit', () => {
    expect(clientAddressKey('2001:db8:1:2::1')).toBe(clientAddressKey('2001:db8:1:2:ffff::9'));
    expect(clientAddressKey('2001:db8:1:2::1')).not.toBe(clientAddressKey('2001:db8:1:3::1'));
  });

  it('maps missing or junk addresses to one bucket rather than failing', () => {
    expect(clientAddressKey(undefined)).toBe('unknown');
    expect(clientAddressKey('not-an-ip')).toBe('unknown');
  });
});
