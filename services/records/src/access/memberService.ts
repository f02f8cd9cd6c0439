import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { selectBrand, type MemberRow } from './brandRepo';
import { endSessionsWithin } from '../sessions/sessionRepo';
import { currentActor } from './currentActor';
import { authorityWords, endAuthorityBeyondRole, endMembership } from './endMembership';
import { brandId } from './inputs';
import {
  countOwners,
  lockBrandMembers,
  selectCurrentMember,
  selectCurrentMembers,
  selectOwnerEmails,
  updateMemberRole,
} from './memberRepo';

const memberId = z.string().regex(/^mem_[A-Za-z0-9]{1,64}$/, 'must be a member id (mem_...)');
const role = z.enum(ROLES.names, { message: `must be one of ${ROLES.names.join(', ')}` });

const noBrand = (id: string) => () => new AppError('not_found', `No brand ${id}.`);
const noMember = (id: string) => () => new AppError('not_found', `No member ${id}.`);

/** A brand's current members, oldest first (owners only through the console). */
export async function listMembers(
  pool: Pool,
  actor: Actor,
  input: { brandId: string },
): Promise<MemberRow[]> {
  const v = parseOrThrow(z.object({ brandId }), input);
  authorize(await currentActor(pool, actor), 'members.read', v.brandId, noBrand(v.brandId));
  if (!(await selectBrand(pool, v.brandId))) throw noBrand(v.brandId)();
  return selectCurrentMembers(pool, v.brandId);
}

/**
 * A brand's name and the addresses of its current owners, for mail the console sends when no
 * member is signed in (a receiver disabled by the webhooks service). The console's credential
 * alone decides; an unknown brand has no name and no owners. validation_failed for a
 * malformed brand id.
 */
export async function listOwnerEmails(
  pool: Pool,
  input: { brandId: string },
): Promise<{ brandName: string; emails: string[] }> {
  const v = parseOrThrow(z.object({ brandId }), input);
  const brand = await selectBrand(pool, v.brandId);
  if (!brand) return { brandName: '', emails: [] };
  return { brandName: brand.name, emails: await selectOwnerEmails(pool, v.brandId) };
}

/**
 * Sets a member's role; last_owner when it would leave the brand without an owner. The sessions
 * the brand's single sign-on opened for the member end (the provider vouched for the old role's
 * holder); the member's other sessions read the new role at their next request.
 */
export async function changeMemberRole(
  pool: Pool,
  actor: Actor,
  input: { memberId: string; role: RoleName | undefined },
): Promise<MemberRow> {
  const v = parseOrThrow(z.object({ memberId, role }), input);
  return changeMember(pool, actor, v.memberId, async (db, before, who) => {
    if (before.managed_by && before.role !== v.role) {
      throw new AppError(
        'precondition_failed',
        `${before.email}'s role follows the brand's identity provider (their groups there): change it there, or map their groups on Provisioning.`,
      );
    }
    if (before.role === 'owner' && v.role !== 'owner') await requireAnotherOwner(db, before);
    const after = (await updateMemberRole(db, before.id, v.role))!;
    if (before.role !== after.role) {
      const { ended } = await endSessionsWithin(db, {
        email: after.email,
        ssoBrandId: after.brand_id,
      });
      const withAuthority = await endAuthorityBeyondRole(db, after, after.role);
      const summary = `${after.email}: ${before.role} to ${after.role}${sessionsEnded(ended)}${authorityWords(withAuthority)}`;
      await record(db, who, after, 'member.role_changed', summary);
    }
    return after;
  });
}

/**
 * Removes a member from the brand (issue 59: a change at one brand acts at that brand only).
 * The sessions the brand's single sign-on opened for them end, since they speak for this brand
 * alone; their other sessions (an emailed link's, a passkey's) belong to the address and lose
 * this brand at their next request, keeping every other brand. last_owner for the brand's last
 * owner.
 */
export async function removeMember(
  pool: Pool,
  actor: Actor,
  input: { memberId: string },
): Promise<MemberRow> {
  const v = parseOrThrow(z.object({ memberId }), input);
  return changeMember(pool, actor, v.memberId, async (db, before, who) => {
    if (before.role === 'owner') await requireAnotherOwner(db, before);
    const ended = await endMembership(db, {
      id: before.id,
      brandId: before.brand_id,
      email: before.email,
    });
    const summary = `${before.email} (${before.role}) removed${sessionsEnded(ended.sessionsEnded)}${ended.invitationWithdrawn ? '; their pending invitation withdrawn' : ''}${authorityWords(ended)}`;
    await record(db, who, before, 'member.removed', summary);
    return before;
  });
}

/**
 * Loads the member, authorizes members.manage on their brand (another brand's member is
 * not_found), and runs the change under the brand's member lock, authorizing the actor again
 * there: a removal or demotion of theirs that committed while the change waited refuses it.
 */
async function changeMember(
  pool: Pool,
  actor: Actor,
  id: string,
  change: (db: PoolClient, before: MemberRow, who: Actor) => Promise<MemberRow>,
): Promise<MemberRow> {
  const found = await selectCurrentMember(pool, id);
  if (!found) throw noMember(id)();
  authorize(await currentActor(pool, actor), 'members.manage', found.brand_id, noMember(id));
  return withTransaction(pool, async (db) => {
    await lockBrandMembers(db, found.brand_id);
    // The actor's standing again under the lock: two owners removing or demoting each other at
    // once both went through when it was read only before (a hostile review, 2026-12-01).
    const who = await currentActor(db, actor);
    authorize(who, 'members.manage', found.brand_id, noMember(id));
    const before = await selectCurrentMember(db, id);
    if (!before) throw noMember(id)();
    return change(db, before, who);
  });
}

/** The activity summary's note of the brand's single sign-on sessions a change ended. */
const sessionsEnded = (n: number): string =>
  n === 0 ? '' : `; ${n} single sign-on session${n === 1 ? '' : 's'} ended`;

async function requireAnotherOwner(db: PoolClient, member: MemberRow): Promise<void> {
  if ((await countOwners(db, member.brand_id)) <= 1) {
    throw new AppError(
      'last_owner',
      `${member.email} is the brand's last owner; make another member an owner first.`,
    );
  }
}

function record(
  db: PoolClient,
  who: Actor,
  member: MemberRow,
  action: string,
  summary: string,
): Promise<void> {
  return insertActivity(db, {
    brandId: member.brand_id,
    action,
    actorMemberId: actorMemberId(who),
    actorEmail: actorEmail(who),
    subjectId: member.id,
    summary,
  });
}
