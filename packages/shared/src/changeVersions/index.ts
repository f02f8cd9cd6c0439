import type { Redis } from '../redis';

/**
 * The change versions of (brand, resource) pairs as records publishes them and the gateway
 * reads them (issue 18). records advances a version in the same transaction as any write of
 * a record of that resource (migration 0007) and, after commit, publishes it here; the
 * gateway reads it in its rate-limit round trip and answers a matching If-None-Match with
 * 304 without asking for the page. A missing key means "unknown": the gateway serves the
 * full page, never a 304.
 */

/** The Redis key of a brand's resource version, without the deployment's key prefix. */
export function changeVersionKey(brandId: string, resource: string): string {
  return `rv:${brandId}:${resource}`;
}

/**
 * Kept a week: a brand that stops changing keeps its key while polled (each full page a
 * gateway serves after a miss writes it back), and a deleted brand's keys go away.
 */
export const CHANGE_VERSION_TTL_SECONDS = 7 * 24 * 3600;

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

export interface ChangeVersion {
  brandId: string;
  resource: string;
  /** A decimal integer, as PostgreSQL's bigint arrives. */
  version: string;
}

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
