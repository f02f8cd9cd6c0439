import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { ROLES, TIERS, type RoleName, type TierName } from '../enums/access';

/**
 * What a member assertion states: this member, with this role, acts on this brand (of this
 * tier) until `exp`. Minted by the records service (which owns members) when the console
 * resolves a session; checked by every service the console calls on the member's behalf.
 */
export interface MemberClaims {
  brand_id: string;
  member_id: string;
  email: string;
  role: RoleName;
  tier: TierName;
  /** Unix seconds. */
  iat: number;
  /** Unix seconds. */
  exp: number;
}

/** Assertions live this long: a removed member or a tier change bites within a minute anyway. */
export const MEMBER_ASSERTION_TTL_SECONDS = 60;
/** Clock difference tolerated between records and the verifying service. */
const CLOCK_SKEW_SECONDS = 5;
const VERSION = 'v1';

const Claims = z.object({
  brand_id: z.string().regex(/^br_[A-Za-z0-9]{1,64}$/),
  member_id: z.string().regex(/^mem_[A-Za-z0-9]{1,64}$/),
  email: z.string().min(3).max(254),
  role: z.enum(ROLES.names),
  tier: z.enum(TIERS.names),
  iat: z.number().int().positive(),
  exp: z.number().int().positive(),
});

/** Why an assertion was refused; the message is safe to show the caller. */
export class MemberAssertionError extends Error {
  override readonly name = MemberAssertionError.name;
}

function ed25519Key(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${what} must be an Ed25519 key`);
  return key;
}

/** Reads an Ed25519 private key (PKCS#8 PEM); throws on anything else. */
export function parseAssertionPrivateKey(pem: string): KeyObject {
  return ed25519Key(createPrivateKey(pem), 'the member assertion private key');
}

/** Reads an Ed25519 public key (SPKI PEM), or derives it from a private key's PEM. */
export function parseAssertionPublicKey(pem: string): KeyObject {
  return ed25519Key(createPublicKey(pem), 'the member assertion public key');
}

/**
 * Signs claims into the compact form `v1.<base64url JSON>.<base64url Ed25519 signature>`;
 * the signature covers `v1.<base64url JSON>`. `nowMs` is for tests.
 */
export function signMemberAssertion(
  privateKey: KeyObject,
  member: Omit<MemberClaims, 'iat' | 'exp'>,
  nowMs = Date.now(),
): { assertion: string; expiresAt: Date } {
  const iat = Math.floor(nowMs / 1000);
  const claims: MemberClaims = { ...member, iat, exp: iat + MEMBER_ASSERTION_TTL_SECONDS };
  const signed = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign(null, Buffer.from(signed), privateKey).toString('base64url');
  return { assertion: `${signed}.${signature}`, expiresAt: new Date(claims.exp * 1000) };
}

/**
 * Verifies an assertion: form, Ed25519 signature with one of the given public keys (the
 * current one first, then former ones during a rotation), claims shape, and time (not
 * expired, not issued in the future, not valid longer than the TTL even if signed so).
 * Throws MemberAssertionError; never returns unverified claims.
 */
export function verifyMemberAssertion(
  publicKeys: readonly KeyObject[],
  assertion: string,
  nowMs = Date.now(),
): MemberClaims {
  const parts = assertion.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || assertion.length > 2048) {
    throw new MemberAssertionError('The member assertion is malformed.');
  }
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2]!, 'base64url');
  if (!publicKeys.some((key) => verify(null, signed, key, signature))) {
    throw new MemberAssertionError('The member assertion signature is not valid.');
  }
  let claims: MemberClaims;
  try {
    claims = Claims.parse(JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')));
  } catch {
    throw new MemberAssertionError('The member assertion claims are malformed.');
  }
  const now = nowMs / 1000;
  if (claims.exp - claims.iat > MEMBER_ASSERTION_TTL_SECONDS) {
    throw new MemberAssertionError('The member assertion is valid for too long.');
  }
  if (claims.iat > now + CLOCK_SKEW_SECONDS) {
    throw new MemberAssertionError('The member assertion is issued in the future.');
  }
  if (claims.exp + CLOCK_SKEW_SECONDS < now) {
    throw new MemberAssertionError('The member assertion has expired; resolve the session again.');
  }
  return claims;
}
