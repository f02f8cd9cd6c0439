import { roleAllows } from '@brand/shared/console';
import type { PoolClient } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';
import { selectOpenInvitationId } from '../invitations/invitationRepo';
import {
  withdrawInvitationsSentBy,
  withdrawOpenInvitation,
} from '../invitations/withdrawOpenInvitation';
import { endSessionsWithin } from '../sessions/sessionRepo';
import { markMemberRemoved } from './memberRepo';

/**
 * Ends a membership, whoever ends it (an owner, the brand's identity provider): the member is
 * removed, the sessions the brand's single sign-on opened for the person end (their other
 * sessions lose the brand at their next request), an invitation of theirs still open, sent
 * before they joined another way, is withdrawn: accepting it would undo the removal, and so are
 * the invitations they sent, which spoke with their authority (hostile reviews of 2026-11-29).
 * The caller holds the brand's member lock and writes the activity.
 */
export async function endMembership(
  db: PoolClient,
  member: { id: string; brandId: string; email: string },
): Promise<{ sessionsEnded: number; invitationWithdrawn: boolean; sentWithdrawn: number }> {
  await markMemberRemoved(db, member.id);
  const { ended } = await endSessionsWithin(db, {
    email: member.email,
    ssoBrandId: member.brandId,
  });
  // Found unlocked: the withdrawal locks its mails before the invitation, as the mail claim does.
  const open = await selectOpenInvitationId(db, member.brandId, member.email);
  const withdrawn = open !== undefined && (await withdrawOpenInvitation(db, open));
  const sentWithdrawn = await withdrawInvitationsSentBy(db, member.id);
  return { sessionsEnded: ended, invitationWithdrawn: withdrawn, sentWithdrawn };
}

/**
 * After a member's role changed, whoever changed it: the invitations they sent are withdrawn
 * when the new role cannot invite (members.manage), as at a removal. Answers how many.
 */
export async function withdrawInvitationsBeyondRole(
  db: PoolClient,
  member: { id: string },
  role: RoleName,
): Promise<number> {
  return roleAllows(role, 'members.manage') ? 0 : withdrawInvitationsSentBy(db, member.id);
}

/** The activity summary's words for invitations withdrawn with their sender ('' for none). */
export function sentInvitationsWords(n: number): string {
  return n === 0 ? '' : `; ${n} invitation${n === 1 ? '' : 's'} they sent withdrawn`;
}
