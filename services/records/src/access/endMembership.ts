import type { PoolClient } from '@brand/shared/db';
import { selectOpenInvitationId } from '../invitations/invitationRepo';
import { withdrawOpenInvitation } from '../invitations/withdrawOpenInvitation';
import { endSessionsWithin } from '../sessions/sessionRepo';
import { markMemberRemoved } from './memberRepo';

/**
 * Ends a membership, whoever ends it (an owner, the brand's identity provider): the member is
 * removed, the sessions the brand's single sign-on opened for the person end (their other
 * sessions lose the brand at their next request), and an invitation of theirs still open, sent
 * before they joined another way, is withdrawn: accepting it would undo the removal (hostile
 * reviews of 2026-11-29). The caller holds the brand's member lock and writes the activity.
 */
export async function endMembership(
  db: PoolClient,
  member: { id: string; brandId: string; email: string },
): Promise<{ sessionsEnded: number; invitationWithdrawn: boolean }> {
  await markMemberRemoved(db, member.id);
  const { ended } = await endSessionsWithin(db, {
    email: member.email,
    ssoBrandId: member.brandId,
  });
  // Found unlocked: the withdrawal locks its mails before the invitation, as the mail claim does.
  const open = await selectOpenInvitationId(db, member.brandId, member.email);
  const withdrawn = open !== undefined && (await withdrawOpenInvitation(db, open));
  return { sessionsEnded: ended, invitationWithdrawn: withdrawn };
}
