import { revocationChannel } from '@brand/shared/keys';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import type { KeyCache } from './keyCache';

/**
 * Subscribes to revocation announcements and drops each revoked key from the cache. On
 * every (re)connect the whole cache is cleared, since announcements made while
 * disconnected are lost. Returns a function that unsubscribes.
 */
export function listenForRevocations(
  subscriber: Redis,
  keyPrefix: string,
  cache: KeyCache,
  log: Logger,
): () => Promise<void> {
  const channel = revocationChannel(keyPrefix);
  subscriber.on('message', (received: string, keyHash: string) => {
    if (received === channel && /^[0-9a-f]{64}$/.test(keyHash)) cache.invalidate(keyHash);
  });
  subscriber.on('ready', () => cache.clear());
  subscriber
    .subscribe(channel)
    .catch((err: unknown) => log.warn({ err }, 'could not subscribe to key revocations'));
  return async () => {
    await subscriber.unsubscribe(channel).catch(() => undefined);
  };
}
