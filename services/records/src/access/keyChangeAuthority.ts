import { authorize, type Actor, type ConsoleAction } from '@brand/shared/console';
import type { PoolClient } from '@brand/shared/db';
import type { AppError } from '@brand/shared/errors';
import { currentActor } from './currentActor';
import { shareBrandForKeys } from './keyNetworksRepo';

/**
 * Under a key change's transaction, before the key's own lock: the brand's row shared
 * (shareBrandForKeys: member changes lock it for update) and the actor authorized again there.
 * Read only before it, a change waiting behind its actor's removal or demotion went ahead on the
 * authority they no longer had (as member changes did before b1f9c5ab; a hostile review,
 * 2026-12-01). Answers the actor as they are now; an operator's named owner is read again by
 * the caller (namedOwner, recordedActor on `db`). Provisioning changes use it too, after their own
 * lock on the brand's row (provisioningService.ts, scimTokens.ts).
 */
export async function reauthorizeUnderBrand(
  db: PoolClient,
  actor: Actor,
  action: ConsoleAction,
  brandId: string,
  refuse: () => AppError,
): Promise<Actor> {
  await shareBrandForKeys(db, brandId);
  const who = await currentActor(db, actor);
  authorize(who, action, brandId, refuse);
  return who;
}
