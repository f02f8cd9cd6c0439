import type { RefusedRequest, UsageCount } from '@brand/proto/access/v1/usage';
import type { RefusalReason } from './usageBounds';

/** A key a gateway sent the hash of, as records knows it. */
export interface HashedKey {
  id: string;
  brand_id: string;
  environment: string;
  revoked: boolean;
  /** True when the key had expired (a rolled key past its expiry) at the request's time. */
  expiredAt: (atMs: number) => boolean;
}

/** Where one count goes: a brand and a key ('' for no key of the brand). */
export interface CountTarget {
  brandId: string;
  keyId: string;
}

/** One request-log row to store. */
export interface LogTarget {
  brandId: string;
  keyId: string | null;
  reason: RefusalReason;
}

/**
 * The attribution rule of issue 26, for counts: an admitted key counts for its brand; a
 * refused well-formed key for the brand owning its hash (even revoked, expired or of the other
 * environment); anything else (no key, an unknown key) for the brand the client address was
 * recently admitted for, with no key; else nowhere (dropped).
 */
export function countTarget(
  c: UsageCount,
  keys: ReadonlyMap<string, HashedKey>,
): CountTarget | undefined {
  if (c.brand_id !== '' && c.key_id !== '') return { brandId: c.brand_id, keyId: c.key_id };
  const key = c.key_hash === '' ? undefined : keys.get(c.key_hash);
  if (key) return { brandId: key.brand_id, keyId: key.id };
  if (c.address_brand_id !== '') return { brandId: c.address_brand_id, keyId: '' };
  return undefined;
}

/**
 * The same rule for a refused or failed request, with the owner-only reason of a 401:
 * - an admitted key (a 403, 404, 429 after admission): its brand, no reason;
 * - a known hash: the key's brand, with revoked / expired / wrong_environment; and when the
 *   address was admitted for another brand, a second row there: "other_brand", no key (that
 *   brand never learns whose key it was);
 * - an unknown hash: the address's brand, "unknown_key";
 * - no key, another scheme, a malformed token: the address's brand, "no_key" or "unknown_key".
 * Reasons are kept only on 401s (the API answered invalid_key or missing_key).
 */
export function logTargets(
  r: RefusedRequest,
  keys: ReadonlyMap<string, HashedKey>,
  serving: string,
): LogTarget[] {
  const on401 = (reason: RefusalReason): RefusalReason => (r.status === 401 ? reason : '');
  if (r.brand_id !== '' && r.key_id !== '')
    return [{ brandId: r.brand_id, keyId: r.key_id, reason: '' }];
  const address = r.address_brand_id;
  if (r.key_hash !== '') {
    const key = keys.get(r.key_hash);
    if (!key)
      return address === ''
        ? []
        : [{ brandId: address, keyId: null, reason: on401('unknown_key') }];
    const reason: RefusalReason = key.revoked
      ? 'revoked'
      : key.expiredAt(r.at)
        ? 'expired'
        : r.gateway_reason === 'wrong_environment' || key.environment !== serving
          ? 'wrong_environment'
          : '';
    const own: LogTarget = { brandId: key.brand_id, keyId: key.id, reason: on401(reason) };
    if (address === '' || address === key.brand_id || r.status !== 401) return [own];
    return [own, { brandId: address, keyId: null, reason: 'other_brand' }];
  }
  if (address === '') return [];
  return [
    {
      brandId: address,
      keyId: null,
      reason: on401(r.gateway_reason === 'malformed' ? 'unknown_key' : 'no_key'),
    },
  ];
}
