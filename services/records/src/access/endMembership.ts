import { roleAllows } from '@brand/shared/console';
import type { PoolClient } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';
import { selectOpenInvitationId } from '../invitations/invitationRepo';
import {
  withdrawInvitationsSentBy,
  withdrawOpenInvitation,
} from '../invitations/withdrawOpenInvitation';
import { revokeScimTokensMadeBy, type RevokedScimToken } from '../provisioning/scimTokenRepo';
import { scimTokensWords } from '../provisioning/scimTokens';
import { endSessionsWithin, markSessionsLeftBrand } from '../sessions/sessionRepo';
import { markMemberRemoved } from './memberRepo';

/** What spoke with a member's authority and ended with it: invitations sent, SCIM tokens made. */
export interface AuthorityEnded {
  sentWithdrawn: number;
  scimTokensRevoked: RevokedScimToken[];
}

/**
 * Ends a membership, whoever ends it (an owner, the brand's identity provider): the member is
 * removed, the sessions the brand's single sign-on opened for the person end (their other
 * sessions lose the brand at their next request, for good: a member who comes back signs in
 * again), an invitation of theirs still open, sent
 * before they joined another way, is withdrawn: accepting it would undo the removal, and so are
 * the invitations they sent and revoked the SCIM tokens they made, which spoke with their
 * authority (hostile reviews of 2026-11-29; the tokens, a later review: a removed owner
 * provisioned themselves back through one). The caller holds the brand's member lock and writes
 * the activity (authorityWords).
 */
export async function endMembership(
  db: PoolClient,
  member: { id: string; brandId: string; email: string },
): Promise<{ sessionsEnded: number; invitationWithdrawn: boolean } & AuthorityEnded> {
  await markMemberRemoved(db, member.id);
  const { ended } = await endSessionsWithin(db, {
    email: member.email,
    ssoBrandId: member.brandId,
  });
  // The address's other sessions keep its other brands, never this one: coming back (an
  // invitation, an operator, SCIM) must not reopen it to a session the owner meant to shut out.
  await markSessionsLeftBrand(db, { email: member.email, brandId: member.brandId });
  // Found unlocked: the withdrawal locks its mails before the invitation, as the mail claim does.
  const open = await selectOpenInvitationId(db, member.brandId, member.email);
  const withdrawn = open !== undefined && (await withdrawOpenInvitation(db, open));
  const sentWithdrawn = await withdrawInvitationsSentBy(db, member.id);
  const scimTokensRevoked = await revokeScimTokensMadeBy(db, member.id);
  return { sessionsEnded: ended, invitationWithdrawn: withdrawn, sentWithdrawn, scimTokensRevoked };
}

/**
 * After a member's role changed, whoever changed it, as at a removal: the invitations they sent
 * are withdrawn when the new role cannot invite (members.manage), and the SCIM tokens they made
 * revoked when it cannot provision (members.provisioning). Answers what ended.
 */
export async function endAuthorityBeyondRole(
  db: PoolClient,
  member: { id: string },
  role: RoleName,
): Promise<AuthorityEnded> {
  return {
    sentWithdrawn: roleAllows(role, 'members.manage')
      ? 0
      : await withdrawInvitationsSentBy(db, member.id),
    scimTokensRevoked: roleAllows(role, 'members.provisioning')
      ? []
      : await revokeScimTokensMadeBy(db, member.id),
  };
}

/** The activity summary's words for what ended with a member's authority ('' for nothing). */
export function authorityWords(ended: AuthorityEnded): string {
  const n = ended.sentWithdrawn;
  const invitations = n === 0 ? '' : `; ${n} invitation${n === 1 ? '' : 's'} they sent withdrawn`;
  return `${invitations}${scimTokensWords(ended.scimTokensRevoked)}`;
}
