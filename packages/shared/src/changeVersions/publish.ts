import type { Redis } from '../redis';
import { CHANGE_VERSION_TTL_SECONDS, changeVersionKey, type ChangeVersion } from './keys';

/**
 * Sets each KEYS[i] to ARGV[i] unless it already holds a greater version. Publishes race
 * (two commits publish 5 and 6, the 6 lands first; a sweep re-publishes an old value), so a
 * plain SET could move a key back to an older version: a page holding the newer change would
 * then be labelled with the older version, and a client holding the older page would get 304.
 * Versions are integers below 2^53 (Lua numbers are doubles).
 */
const PUBLISH_LUA = `
for i, key in ipairs(KEYS) do
  local current = tonumber(redis.call('GET', key) or '-1')
  local version = tonumber(ARGV[i])
  if version > current then
    redis.call('SET', key, ARGV[i], 'EX', ARGV[#KEYS + 1])
  else
    redis.call('EXPIRE', key, ARGV[#KEYS + 1])
  end
end
return #KEYS
`;

interface PublishingRedis extends Redis {
  publishChangeVersions(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
}

/**
 * Publishes versions in one round trip, never moving a key back (PUBLISH_LUA). Rejects when
 * Redis is unreachable: the caller decides whether to log (records' sweep republishes what
 * changed recently, so a lost publish heals).
 */
export async function publishChangeVersions(
  redis: Redis,
  keyPrefix: string,
  versions: readonly ChangeVersion[],
): Promise<void> {
  if (versions.length === 0) return;
  if (!('publishChangeVersions' in redis))
    redis.defineCommand('publishChangeVersions', { lua: PUBLISH_LUA });
  const keys = versions.map((v) => `${keyPrefix}${changeVersionKey(v.brandId, v.resource)}`);
  const args = versions.map((v) => v.version);
  await (redis as PublishingRedis).publishChangeVersions(
    keys.length,
    ...keys,
    ...args,
    String(CHANGE_VERSION_TTL_SECONDS),
  );
}

/** At most this many keys per Redis call. */
const CHUNK = 500;

/** Publishes versions in Redis calls of at most CHUNK keys each; rejects on a Redis failure. */
export async function publishInChunks(
  redis: Redis,
  keyPrefix: string,
  versions: readonly ChangeVersion[],
): Promise<void> {
  for (let i = 0; i < versions.length; i += CHUNK)
    await publishChangeVersions(redis, keyPrefix, versions.slice(i, i + CHUNK));
}
