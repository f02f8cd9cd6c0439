import { Redis } from 'ioredis';
import { randomHex } from './random';
import { testRedisUrl } from './testEnv';

/** A key prefix no other stack uses, e.g. `t:9f2c41aa:`; the services put it before every key. */
export function uniqueRedisPrefix(): string {
  return `t:${randomHex(4)}:`;
}

/** Deletes every key starting with `prefix` (SCAN + UNLINK); returns how many went. */
export async function freeRedisPrefixKeys(
  prefix: string,
  redisUrl = testRedisUrl(),
): Promise<number> {
  if (prefix.length === 0) throw new Error('refusing to delete every key in Redis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
