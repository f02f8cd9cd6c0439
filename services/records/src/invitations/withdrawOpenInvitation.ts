import type { PoolClient } from '@brand/shared/db';
import { deleteInvitationMails } from '../memberMails/memberMailRepo';
import { closeInvitation, lockInvitation } from './invitationRepo';

/**
 * Withdraws an invitation inside the caller's transaction: its mails not yet sent go first, then
 * the invitation closes, in the order the mail claim locks them (a claim holding a mail row then
 * waits for nothing this transaction holds: no deadlock). False when it was no longer open.
 * An owner's withdrawal and a member's removal (their invitation still open) both end here.
 */
export async function withdrawOpenInvitation(
  db: PoolClient,
  invitationId: string,
): Promise<boolean> {
  await deleteInvitationMails(db, invitationId);
  const locked = await lockInvitation(db, invitationId);
  if (!locked?.open) return false;
  return closeInvitation(db, invitationId, 'withdrawn');
}
