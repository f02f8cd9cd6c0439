import { createHash } from 'node:crypto';
import type { Redis } from '@brand/shared/redis';
import type { Logger } from '@brand/shared/logger';

/**
 * The logout tokens already used (issue 59 part 5): a back-channel logout token is good once.
 * Its jti is remembered, per issuer, for as long as the token could still pass verification.
 */
export interface LogoutTokenLedger {
  /** Remembers the token; false when it was used before (a replay). */
  firstUse(issuer: string, jti: string, ttlMs: number): Promise<boolean>;
}

/**
 * The ledger in Redis: one key per token, SET NX with the token's remaining lifetime, so replicas
 * share it and it empties itself. When Redis cannot answer, the token is let through and the
 * miss logged: ending sessions is what a provider asks for, and a replay still cannot end a
 * session opened after the token was issued (the iat rule in ssoSessionRepo.endSsoSessions).
 */
export function redisLogoutTokenLedger(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
): LogoutTokenLedger {
  return {
    async firstUse(issuer, jti, ttlMs) {
      const id = createHash('sha256').update(`${issuer}\n${jti}`).digest('base64url');
      try {
        const set = await redis.set(
          `${keyPrefix}sso:logout-jti:${id}`,
          '1',
          'PX',
          Math.max(1_000, ttlMs),
          'NX',
        );
        return set === 'OK';
      } catch (err) {
        log.warn({ err }, 'logout token ledger unavailable; the token is used without it');
        return true;
      }
    },
  };
}
