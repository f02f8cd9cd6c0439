import type { Actor } from '@brand/shared/console';
import type { Pool, PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { selectCurrentMember } from './memberRepo';

/**
 * The actor with the member's standing as it is now. The assertion is at most a minute
 * old, but records owns members and can do better: a member removed or demoted a second
 * ago is refused at once. A member no longer on the brand sees nothing of it (not_found).
 * A change made under the brand's member lock reads it again there (`db`, the transaction):
 * read before the lock, a removal or demotion of the actor committing while the change waited
 * is not seen, and the change goes ahead on the authority they no longer have.
 */
export async function currentActor(pool: Pool | PoolClient, actor: Actor): Promise<Actor> {
  if (actor.kind !== 'member') return actor;
  const row = await selectCurrentMember(pool, actor.member.member_id);
  if (!row || row.brand_id !== actor.member.brand_id) {
    throw new AppError('not_found', `No brand ${actor.member.brand_id}.`);
  }
  return { kind: 'member', member: { ...actor.member, role: row.role, email: row.email } };
}
