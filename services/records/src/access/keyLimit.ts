import type { PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { countLiveKeys } from './keyRepo';

/**
 * A brand holds at most this many live API keys (not revoked, not expired): one per
 * integration and environment, with room for every one of them to be mid-roll. Without a bound
 * an owner's session, or a script run wild, could mint keys without end, each one a secret to
 * track down and every key list and gateway cache of the brand the longer for it.
 */
const MAX_LIVE_KEYS = 100;

/**
 * Refuses one more live key when the brand has its limit. The caller holds the brand's row for
 * update (lockBrandMembers), so two creations at the limit cannot both pass the count.
 */
export async function refuseBeyondLiveKeys(
  db: PoolClient,
  brandId: string,
  doing: string,
): Promise<void> {
  if ((await countLiveKeys(db, brandId)) >= MAX_LIVE_KEYS) {
    throw new AppError(
      'key_limit',
      `Cannot ${doing}: this brand has ${MAX_LIVE_KEYS} live API keys, the most it may have. Revoke or expire one it no longer uses first.`,
    );
  }
}
