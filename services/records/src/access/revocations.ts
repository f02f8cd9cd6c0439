import { revocationChannel } from '@brand/shared/keys';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';

/** Tells every gateway instance to forget a key now. */
export interface RevocationNotifier {
  announce(keyHashHex: string): Promise<void>;
}

/**
 * Publishes revocations on Redis pub/sub. Publishing is best effort: the revocation is
 * already committed, and if Redis is unreachable gateways still drop the key when their
 * short cache entry expires (KEY_CACHE_TTL_MS) or when they reconnect to Redis and flush.
 */
export function redisRevocationNotifier(
  redis: Redis,
  keyPrefix: string,
  log: Logger,
): RevocationNotifier {
  const channel = revocationChannel(keyPrefix);
  return {
    async announce(keyHashHex) {
      try {
        await redis.publish(channel, keyHashHex);
      } catch (err) {
        log.warn(
          { err },
          'could not announce key revocation; gateways will drop it on cache expiry',
        );
      }
    },
  };
}
