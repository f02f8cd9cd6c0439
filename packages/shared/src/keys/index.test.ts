import {
  generateApiKey,
  hashApiKey,
  isPermission,
  keyDisplayPrefix,
  keyEnvironment,
  PERMISSIONS,
  revocationChannel,
} from './index';

describe('generateApiKey', () => {
  it.each(['live', 'test'] as const)('makes bk_%s_ plus 40 base62 characters', (env) => {
    const key = generateApiKey(env);
    expect(key).toMatch(new RegExp(`^bk_${env}_[0-9A-Za-z]{40}$`));
    expect(keyEnvironment(key)).toBe(env);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey('live')));
    expect(keys.size).toBe(1000);
  });
});

describe('keyEnvironment', () => {
  const body = 'a'.repeat(40);
  it.each([
    [`bk_live_${body}`, 'live'],
    [`bk_test_${body}`, 'test'],
    [`bk_live_${'Z9'.repeat(16)}`, 'live'],
    [`bk_test_${'x'.repeat(64)}`, 'test'],
  ])('reads %s as %s', (token, env) => expect(keyEnvironment(token)).toBe(env));

  it.each([
    ['another environment', `bk_prod_${body}`],
    ['upper-case environment', `bk_LIVE_${body}`],
    ['another prefix', `sk_live_${body}`],
    ['the scheme included', `Bearer bk_live_${body}`],
    ['too short a body', `bk_live_${'a'.repeat(31)}`],
    ['too long a body', `bk_live_${'a'.repeat(65)}`],
    ['a non-base62 character', `bk_live_${'a'.repeat(39)}-`],
    ['whitespace', ` bk_live_${body}`],
    ['a trailing newline', `bk_live_${body}\n`],
    ['nothing', ''],
  ])('refuses %s', (_, token) => expect(keyEnvironment(token)).toBeUndefined());
});

describe('hashApiKey', () => {
  it('is the lower-case hex SHA-256 of the whole key', () => {
    // FIPS 180-2 test vector
    expect(hashApiKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const key = generateApiKey('live');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    // Change the last character to one it cannot already be (a random key may end in "x").
    const changed = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    expect(hashApiKey(key)).not.toBe(hashApiKey(changed));
  });
});

describe('keyDisplayPrefix', () => {
  it('keeps the environment marker and four characters of the secret', () => {
    const key = generateApiKey('live');
    expect(keyDisplayPrefix(key)).toBe(key.slice(0, 12));
    expect(keyDisplayPrefix(key)).toMatch(/^bk_live_[0-9A-Za-z]{4}$/);
  });
});

describe('permissions and channels', () => {
  it('knows campaigns:prepare and audit:read and nothing else', () => {
    expect(PERMISSIONS).toEqual(['campaigns:prepare', 'audit:read']);
    expect(isPermission('campaigns:prepare')).toBe(true);
    expect(isPermission('audit:read')).toBe(true);
    for (const p of [
      'campaigns:write',
      'CAMPAIGNS:PREPARE',
      '',
      'records:read',
      'audit:write',
      42,
    ]) {
      expect(isPermission(p)).toBe(false);
    }
  });

  it('puts the revocation channel under the key prefix', () => {
    expect(revocationChannel('brs:')).toBe('brs:keys:revoked');
    expect(revocationChannel('t:abc:')).toBe('t:abc:keys:revoked');
  });
});
