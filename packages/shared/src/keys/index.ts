import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids';

export {
  compileNetworks,
  MAX_KEY_NETWORKS,
  readNetworks,
  type NetworkMatcher,
  type NetworksReading,
} from './networks';

export type KeyEnvironment = 'live' | 'test';

/**
 * Opt-in permissions; reading records needs none. `audit:read` reads the brand's audit log
 * (GET /api/v1/audit-log, issue 63).
 */
export const PERMISSIONS = ['campaigns:prepare', 'audit:read'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What every key may do without being granted it: read its brand's records (the six
 * resources, one record by id, the events feed). Never stored and never an opt-in: named so
 * that a key's whole list of what it can do reads the same everywhere it is shown.
 */
export const READ_RECORDS = 'records:read';

/** Everything a key with these opt-in permissions may do: records:read first, then those. */
export const keyAbilities = (optIn: readonly string[]): string[] => [READ_RECORDS, ...optIn];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** 40 base62 characters: about 238 bits of entropy. */
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^bk_(live|test)_[A-Za-z0-9]{32,64}$/;

/** Characters kept for display ("bk_live_7Qx2"): enough to tell keys apart, useless to an attacker. */
const DISPLAY_PREFIX_LENGTH = 12;

/** A new key secret, e.g. `bk_live_<40 base62>`. It is shown once and stored only as a hash. */
export function generateApiKey(environment: KeyEnvironment): string {
  return `bk_${environment}_${randomBase62(SECRET_LENGTH)}`;
}

/** The lower-case hex SHA-256 of the full key: what is stored, looked up and compared. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The environment a well-formed key belongs to, or undefined when it is not a key at all. */
export function keyEnvironment(token: string): KeyEnvironment | undefined {
  const m = KEY_PATTERN.exec(token);
  return m ? (m[1] as KeyEnvironment) : undefined;
}

export function keyDisplayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/**
 * The Redis pub/sub channel on which the records service announces revoked keys (by
 * hash) and every gateway instance listens, so a revocation takes effect at once.
 */
export function revocationChannel(keyPrefix: string): string {
  return `${keyPrefix}keys:revoked`;
}
