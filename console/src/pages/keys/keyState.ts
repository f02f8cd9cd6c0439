import type { ApiKey } from '@brand/proto/access/v1';

/**
 * Where a key stands at `now`: revoked, expired (past its expiry, for good), expiring (has a
 * future expiry: a rolled key's overlap, or one given at creation) or active.
 */
export function keyState(
  k: Pick<ApiKey, 'revoked_at' | 'expires_at'>,
  now: number,
): 'revoked' | 'expired' | 'expiring' | 'active' {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at) return Date.parse(k.expires_at) <= now ? 'expired' : 'expiring';
  return 'active';
}
