import type { Actor } from '@brand/shared/console';
import type { Pool, PoolClient } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { selectMemberByEmail, type MemberRow } from './brandRepo';

/** Who a brand's activity names for a change: a member's id ("" for "operator") and email. */
export interface RecordedActor {
  memberId: string;
  email: string;
}

/**
 * The owner of the brand an operator names (actor_email, brandctl's --actor), or
 * insufficient_permission saying why not. The name goes into the brand's activity, so only
 * an owner of that brand may be named: an outside probe (2026-11-30) revoked one brand's key
 * naming another brand's owner, and the first brand's activity recorded that person.
 */
export async function namedOwner(
  pool: Pool | PoolClient,
  brandId: string,
  email: string,
  doing: string,
): Promise<MemberRow> {
  const member = email ? await selectMemberByEmail(pool, brandId, email) : undefined;
  if (member?.role === 'owner') return member;
  const named = !email
    ? 'name the owner acting (actor_email)'
    : member
      ? `${email} is a brand ${member.role}`
      : `${email} is not a member of this brand`;
  throw new AppError('insufficient_permission', `Only a brand owner can ${doing}: ${named}.`);
}

/**
 * The actor a change is recorded as, for the RPCs where naming one is optional: a console
 * member is themselves (whatever the request said), an operator who names nobody is
 * "operator", and an operator who names someone must name an owner of the brand.
 */
export async function recordedActor(
  pool: Pool | PoolClient,
  who: Actor,
  brandId: string,
  claimedEmail: string,
  doing: string,
): Promise<RecordedActor> {
  if (who.kind === 'member') return { memberId: who.member.member_id, email: who.member.email };
  if (!claimedEmail) return { memberId: '', email: 'operator' };
  const owner = await namedOwner(pool, brandId, claimedEmail, doing);
  return { memberId: owner.id, email: owner.email };
}
