import { generateKeyPairSync, sign } from 'node:crypto';
import {
  MEMBER_ASSERTION_TTL_SECONDS,
  MemberAssertionError,
  parseAssertionPrivateKey,
  parseAssertionPublicKey,
  signMemberAssertion,
  verifyMemberAssertion,
} from './memberAssertion';

const pair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey };
};
const MEMBER = {
  brand_id: 'br_abc',
  member_id: 'mem_def',
  email: 'owner@brand.test',
  role: 'owner' as const,
  tier: 'plus' as const,
};
const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('member assertions', () => {
  it('round-trip: the claims come back with a 60 s lifetime', () => {
    const { privateKey, publicKey } = pair();
    const { assertion, expiresAt } = signMemberAssertion(privateKey, MEMBER, NOW);
    expect(assertion).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(expiresAt.getTime()).toBe(NOW + MEMBER_ASSERTION_TTL_SECONDS * 1000);
    expect(verifyMemberAssertion([publicKey], assertion, NOW + 30_000)).toEqual({
      ...MEMBER,
      iat: NOW / 1000,
      exp: NOW / 1000 + 60,
    });
  });

  it('accepts any of the given keys (rotation) and refuses another key', () => {
    const current = pair();
    const former = pair();
    const { assertion } = signMemberAssertion(former.privateKey, MEMBER, NOW);
    expect(() =>
      verifyMemberAssertion([current.publicKey, former.publicKey], assertion, NOW),
    ).not.toThrow();
    expect(() => verifyMemberAssertion([current.publicKey], assertion, NOW)).toThrow(
      /signature is not valid/,
    );
  });

  it('refuses expired, future and tampered assertions', () => {
    const { privateKey, publicKey } = pair();
    const { assertion } = signMemberAssertion(privateKey, MEMBER, NOW);
    expect(() => verifyMemberAssertion([publicKey], assertion, NOW + 66_000)).toThrow(/expired/);
    expect(() => verifyMemberAssertion([publicKey], assertion, NOW - 10_000)).toThrow(/future/);
    const [v, body, sig] = assertion.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as object;
    const forged = Buffer.from(
      JSON.stringify({ ...claims, role: 'owner', brand_id: 'br_other' }),
    ).toString('base64url');
    expect(() => verifyMemberAssertion([publicKey], `${v}.${forged}.${sig}`, NOW)).toThrow(
      MemberAssertionError,
    );
    for (const bad of ['', 'v1.x', 'v2.a.b', `${assertion}.extra`]) {
      expect(() => verifyMemberAssertion([publicKey], bad, NOW)).toThrow(MemberAssertionError);
    }
  });

  it('refuses an assertion signed to live longer than the TTL', () => {
    const { privateKey, publicKey } = pair();
    // signed at NOW with a valid signature, but claims a 10-minute life
    const body = Buffer.from(
      JSON.stringify({ ...MEMBER, iat: NOW / 1000, exp: NOW / 1000 + 600 }),
    ).toString('base64url');
    const sig = sign(null, Buffer.from(`v1.${body}`), privateKey).toString('base64url');
    expect(() => verifyMemberAssertion([publicKey], `v1.${body}.${sig}`, NOW)).toThrow(/too long/);
  });

  it('reads only Ed25519 keys', () => {
    const { privateKey, publicKey } = pair();
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(parseAssertionPrivateKey(pem).asymmetricKeyType).toBe('ed25519');
    expect(parseAssertionPublicKey(pem).type).toBe('public');
    expect(
      parseAssertionPublicKey(publicKey.export({ type: 'spki', format: 'pem' }).toString()).type,
    ).toBe('public');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    expect(() => parseAssertionPrivateKey(rsa.toString())).toThrow(/Ed25519/);
  });
});
