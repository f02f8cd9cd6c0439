import { authorize, type Actor, type ConsoleAction } from '@brand/shared/console';
import type { PoolClient } from '@brand/shared/db';
import type { AppError } from '@brand/shared/errors';
import { currentActor } from './currentActor';
import { shareBrandForKeys } from './keyNetworksRepo';

/**
 * Under an owner-only change's transaction: the brand's row shared (shareBrandForKeys: member
 * changes lock it for update) and the actor authorized again there. Read only before it, a change
 * waiting behind its actor's removal or demotion went ahead on the authority they no longer had
 * (as member changes did before b1f9c5ab; hostile reviews, 2026-12-01): key changes (before the
 * key's own lock), provisioning, single sign-on, ending an SSO session, withdrawing an invitation.
 * Answers the actor as they are now; an operator's named owner is read again by the caller
 * (namedOwner, recordedActor on `db`). A change that already holds the row for update (member
 * changes' lockBrandMembers) calls it after that: sharing a row its own transaction holds is
 * free.
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
