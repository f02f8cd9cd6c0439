import { z } from 'zod';
import { insertActivity } from '@brand/shared/activity';
import { actorEmail, actorMemberId, authorize, type Actor } from '@brand/shared/console';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { ROLES, type RoleName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { selectBrand } from '../access/brandRepo';
import { currentActor } from '../access/currentActor';
import { reauthorizeUnderBrand } from '../access/reauthorizeUnderBrand';
import { brandId, email } from '../access/inputs';
import {
  insertOrRestoreMember,
  lockBrandMembers,
  selectCurrentMemberOf,
} from '../access/memberRepo';
import { deleteInvitationMails, insertInvitationMail } from '../memberMails/memberMailRepo';
import { hashToken, TOKEN_PATTERN } from '../sessions/tokens';
import { withdrawOpenInvitation } from './withdrawOpenInvitation';
import {
  closeInvitation,
  countRecentInvitations,
  insertInvitation,
  lockInvitation,
  lockOpenInvitation,
  selectInvitation,
  selectInvitationByToken,
  selectOpenInvitationsOfBrand,
  type InvitationRow,
} from './invitationRepo';

/** An invitation is pending this long, then expires (issue 59). */
const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/**
 * One brand invites one address at most this often a day (withdrawals and declines included),
 * so no owner can fill a person's mailbox with invitations.
 */
const INVITATIONS_PER_ADDRESS_PER_DAY = 3;
/** A brand holds at most this many pending invitations. */
const MAX_PENDING_INVITATIONS = 200;

const invitationId = z
  .string()
  .regex(/^inv_[A-Za-z0-9]{1,64}$/, 'must be an invitation id (inv_...)');
const role = z.enum(ROLES.names, { message: `must be one of ${ROLES.names.join(', ')}` });

const noBrand = (id: string) => () => new AppError('not_found', `No brand ${id}.`);
const noInvitation = (id: string) => () => new AppError('not_found', `No open invitation ${id}.`);

/**
 * Invites an address to the brand with a role. Nothing changes for the person until they
 * accept: the invitation is stored apart from the members, mailed to the address (the console's
 * mail loop), and recorded as member.invited. already_exists for a current member or an
 * invitation still pending; an expired one is closed and replaced. rate_limited beyond
 * INVITATIONS_PER_ADDRESS_PER_DAY to the address, or MAX_PENDING_INVITATIONS pending.
 */
export async function inviteMember(
  pool: Pool,
  actor: Actor,
  input: { brandId: string; email: string; role: RoleName | undefined },
): Promise<InvitationRow> {
  const v = parseOrThrow(z.object({ brandId, email, role }), input);
  authorize(await currentActor(pool, actor), 'members.manage', v.brandId, noBrand(v.brandId));
  if (!(await selectBrand(pool, v.brandId))) throw noBrand(v.brandId)();
  const id = newId('invitation');
  await withTransaction(pool, async (db) => {
    // One invitation of the brand at a time: two owners inviting one address cannot both pass.
    await lockBrandMembers(db, v.brandId);
    // The inviter's standing again under the lock: read only before it, an owner's invitation
    // waiting behind their removal was stored after the removal withdrew theirs, and outlived
    // them (a hostile review, 2026-12-01).
    const who = await currentActor(db, actor);
    authorize(who, 'members.manage', v.brandId, noBrand(v.brandId));
    if (await selectCurrentMemberOf(db, v.brandId, v.email)) {
      throw new AppError('already_exists', `${v.email} is already a member of this brand.`);
    }
    const open = await lockOpenInvitation(db, v.brandId, v.email);
    if (open && !open.expired) {
      throw new AppError(
        'already_exists',
        `${v.email} has a pending invitation; withdraw it to invite them again.`,
      );
    }
    if (open) await closeInvitation(db, open.id, 'expired');
    const counts = await countRecentInvitations(db, v.brandId, v.email);
    if (counts.toAddress >= INVITATIONS_PER_ADDRESS_PER_DAY) {
      throw new AppError(
        'rate_limited',
        `This brand invited ${v.email} ${INVITATIONS_PER_ADDRESS_PER_DAY} times in the last day; try again tomorrow.`,
      );
    }
    if (counts.open >= MAX_PENDING_INVITATIONS) {
      throw new AppError(
        'rate_limited',
        `This brand has ${MAX_PENDING_INVITATIONS} pending invitations; withdraw some first.`,
      );
    }
    await insertInvitation(db, {
      id,
      brandId: v.brandId,
      email: v.email,
      role: v.role,
      invitedByMemberId: actorMemberId(who),
      invitedByEmail: actorEmail(who),
      ttlMs: INVITATION_TTL_MS,
    });
    await insertInvitationMail(db, { invitationId: id, brandId: v.brandId, email: v.email });
    await insertActivity(db, {
      brandId: v.brandId,
      action: 'member.invited',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: id,
      summary: `${v.email} invited as ${v.role}; a member once they accept`,
    });
  });
  return (await selectInvitation(pool, id))!;
}

/** A brand's open invitations, pending or expired, newest first (owners). */
export async function listBrandInvitations(
  pool: Pool,
  actor: Actor,
  input: { brandId: string },
): Promise<InvitationRow[]> {
  const v = parseOrThrow(z.object({ brandId }), input);
  authorize(await currentActor(pool, actor), 'members.read', v.brandId, noBrand(v.brandId));
  return selectOpenInvitationsOfBrand(pool, v.brandId);
}

/** Withdraws an open invitation (owners): its link stops working and its mail is not sent. */
export async function withdrawInvitation(
  pool: Pool,
  actor: Actor,
  input: { invitationId: string },
): Promise<InvitationRow> {
  const v = parseOrThrow(z.object({ invitationId }), input);
  const found = await selectInvitation(pool, v.invitationId);
  if (!found) throw noInvitation(v.invitationId)();
  authorize(
    await currentActor(pool, actor),
    'members.manage',
    found.brand_id,
    noInvitation(v.invitationId),
  );
  await withTransaction(pool, async (db) => {
    // Again under the brand's row, as sending one does: a withdrawal queued behind its actor's
    // removal went ahead on authority they no longer had (a review, 2026-12-01).
    const who = await reauthorizeUnderBrand(
      db,
      actor,
      'members.manage',
      found.brand_id,
      noInvitation(v.invitationId),
    );
    if (!(await withdrawOpenInvitation(db, found.id))) throw noInvitation(v.invitationId)();
    await insertActivity(db, {
      brandId: found.brand_id,
      action: 'member.invitation_withdrawn',
      actorMemberId: actorMemberId(who),
      actorEmail: actorEmail(who),
      subjectId: found.id,
      summary: `The invitation of ${found.email} was withdrawn`,
    });
  });
  return (await selectInvitation(pool, found.id))!;
}

/** The invitation a mailed link names, in any state; not_found for an unknown token. */
export async function showInvitation(pool: Pool, input: { token: string }): Promise<InvitationRow> {
  return invitationByToken(pool, input.token);
}

/**
 * Accepts or declines the invitation a mailed link names: the token reached the invited
 * address's mailbox, which proves the address.
 */
export async function answerInvitation(
  pool: Pool,
  input: { token: string; accept: boolean },
): Promise<InvitationRow> {
  const found = await invitationByToken(pool, input.token);
  return settleInvitation(pool, found, input.accept);
}

async function invitationByToken(pool: Pool, token: string): Promise<InvitationRow> {
  const unknown = new AppError(
    'not_found',
    'This invitation link is not valid: it may have been replaced by a newer mail.',
  );
  if (!TOKEN_PATTERN.test(token)) throw unknown;
  const found = await selectInvitationByToken(pool, hashToken(token));
  if (!found) throw unknown;
  return found;
}

/**
 * The person's answer, in one transaction under the invitation's lock: accepting adds the
 * member with the invited role (an address that became a member meanwhile stays as it is),
 * declining adds nothing; either closes the invitation and is recorded at the inviting brand,
 * and nowhere else. invitation_closed when it was answered, withdrawn or has expired.
 */
export async function settleInvitation(
  pool: Pool,
  invitation: InvitationRow,
  accept: boolean,
): Promise<InvitationRow> {
  await withTransaction(pool, async (db) => {
    // The brand's members first, as a removal does before it withdraws the invitations of the
    // member it removes (endMembership.ts): taken later, by the new member's insert, the two
    // waited on each other (a review, 2026-11-29). Then mails, then the invitation, as
    // withdrawInvitation (the mail claim's lock order).
    await lockBrandMembers(db, invitation.brand_id);
    await deleteInvitationMails(db, invitation.id);
    const locked = await lockInvitation(db, invitation.id);
    if (!locked?.open || locked.expired) throw closed(await stateOf(db, invitation.id));
    if (accept) await acceptInto(db, invitation);
    else {
      await insertActivity(db, {
        brandId: invitation.brand_id,
        action: 'member.invitation_declined',
        actorMemberId: '',
        actorEmail: invitation.email,
        subjectId: invitation.id,
        summary: `${invitation.email} declined the invitation`,
      });
    }
    await closeInvitation(db, invitation.id, accept ? 'accepted' : 'declined');
  });
  return (await selectInvitation(pool, invitation.id))!;
}

async function acceptInto(db: PoolClient, invitation: InvitationRow): Promise<void> {
  const added = await insertOrRestoreMember(db, {
    id: newId('member'),
    brandId: invitation.brand_id,
    email: invitation.email,
    role: invitation.role,
  });
  const member = added ?? (await selectCurrentMemberOf(db, invitation.brand_id, invitation.email));
  await insertActivity(db, {
    brandId: invitation.brand_id,
    action: 'member.invitation_accepted',
    actorMemberId: member?.id ?? '',
    actorEmail: invitation.email,
    subjectId: member?.id ?? invitation.id,
    summary: added
      ? `${invitation.email} accepted the invitation and joined as ${invitation.role}`
      : `${invitation.email} accepted the invitation; already a member as ${member?.role ?? invitation.role}`,
  });
}

async function stateOf(db: PoolClient, id: string): Promise<string> {
  return (await selectInvitation(db, id))?.state ?? 'withdrawn';
}

function closed(state: string): AppError {
  const why: Record<string, string> = {
    accepted: 'was accepted already',
    declined: 'was declined',
    withdrawn: 'was withdrawn by the brand',
    expired: 'has expired; ask the brand’s owner to invite you again',
    pending: 'has expired; ask the brand’s owner to invite you again',
  };
  return new AppError('invitation_closed', `This invitation ${why[state] ?? 'is closed'}.`);
}
