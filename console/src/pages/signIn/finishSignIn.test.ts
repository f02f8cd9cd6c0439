import type { Request } from 'express';
import { clientKey } from './finishSignIn';

const from = (ip: string | undefined) => clientKey({ ip } as Request);

describe('clientKey', () => {
  // Sign-in budgets per client were keyed on the whole address: an IPv6 client rotating through
  // its /64 took a fresh budget for links, passkey challenges and SSO starts at each one.
  it('counts an IPv6 client by its /64, an IPv4 client by its address', () => {
    expect(from('2001:db8:1:2::1')).toBe(from('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    expect(from('2001:db8:1:2::1')).not.toBe(from('2001:db8:1:3::1'));
    expect(from('203.0.113.7')).not.toBe(from('203.0.113.8'));
    expect(from('::ffff:203.0.113.7')).toBe(from('203.0.113.7'));
    expect(from(undefined)).toBe(from('not an address'));
  });

  it('never holds the address itself', () => {
    expect(from('203.0.113.7')).not.toContain('203');
    expect(from('203.0.113.7')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
