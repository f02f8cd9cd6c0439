import { verifiedEmailOf } from './ssoClaims';

describe('verifiedEmailOf', () => {
  const allowed = ['brand.test'];

  it('answers a verified address at an allowed domain, as members are stored', () => {
    expect(verifiedEmailOf({ email: 'Ana@Brand.Test', email_verified: true }, allowed)).toBe(
      'ana@brand.test',
    );
  });

  it.each([
    [{ email: 'ana@brand.test', email_verified: false }],
    [{ email: 'ana@brand.test', email_verified: 'true' }],
    [{ email: 'ana@brand.test' }],
    [{ email: 'ana@other.test', email_verified: true }],
    [{ email: 'ana@sub.brand.test', email_verified: true }],
    [{ email: 'ana@brand.test.evil.test', email_verified: true }],
    [{ email: 42, email_verified: true }],
    [{ email_verified: true }],
  ])('refuses %j', (claims) => {
    expect(() => verifiedEmailOf(claims, allowed)).toThrow();
  });
});
