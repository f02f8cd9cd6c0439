import type { PoolClient } from '@brand/shared/db';
import { deleteInvitationMails } from '../memberMails/memberMailRepo';
import { closeInvitation, lockInvitation, selectOpenInvitationIdsSentBy } from './invitationRepo';

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

/**
 * Withdraws every invitation still open that `memberId` sent, inside the caller's transaction:
 * when they leave the brand or lose the role that invites (members.manage). An invitation speaks
 * with its sender's authority; without this, a rogue owner's (or a mailbox thief's) invitation of
 * a second address as owner outlived the owners' removing them, for its seven days (a hostile
 * review, 2026-11-29). Answers how many were withdrawn.
 */
export async function withdrawInvitationsSentBy(db: PoolClient, memberId: string): Promise<number> {
  let withdrawn = 0;
  for (const id of await selectOpenInvitationIdsSentBy(db, memberId)) {
    if (await withdrawOpenInvitation(db, id)) withdrawn += 1;
  }
  return withdrawn;
}
