import { z } from 'zod';
import { withTransaction, type Pool } from '@brand/shared/db';
import { parseOrThrow } from '@brand/shared/errors';
import {
  selectInvitation,
  setInvitationToken,
  type InvitationRow,
} from '../invitations/invitationRepo';
import { hashToken, newSecretToken } from '../sessions/tokens';
import {
  claimMemberMails as claimRows,
  deleteMemberMails,
  type ClaimedMailRow,
} from './memberMailRepo';

/** A mail to send now: the row, and for an invitation its state and the link's new token. */
export interface MemberMailToSend extends ClaimedMailRow {
  invitation?: InvitationRow;
  token: string;
}

const ClaimInput = z.object({
  limit: z.number().int().min(1).max(100),
  leaseMs: z
    .number()
    .int()
    .min(1_000)
    .max(10 * 60_000),
});

/**
 * Leases mails to send (the console's member mail loop). An invitation's mail gets a new link
 * token here, its hash stored on the invitation in the same transaction; the raw token is only
 * ever in this answer and the mail. An invitation no longer pending (answered, withdrawn,
 * expired) has its mail dropped unsent.
 */
export async function claimMemberMails(
  pool: Pool,
  input: { limit: number; leaseMs: number },
): Promise<MemberMailToSend[]> {
  const v = parseOrThrow(ClaimInput, input);
  return withTransaction(pool, async (db) => {
    const mails: MemberMailToSend[] = [];
    const dropped: string[] = [];
    for (const row of await claimRows(db, v.limit, v.leaseMs)) {
      if (row.kind !== 'invitation') {
        mails.push({ ...row, token: '' });
        continue;
      }
      const token = newSecretToken();
      const invitation = row.invitation_id
        ? (await setInvitationToken(db, row.invitation_id, hashToken(token))) &&
          (await selectInvitation(db, row.invitation_id))
        : undefined;
      if (invitation) mails.push({ ...row, invitation, token });
      else dropped.push(row.id);
    }
    await deleteMemberMails(db, dropped);
    return mails;
  });
}

const CompleteInput = z.object({
  ids: z.array(z.string().regex(/^mml_[A-Za-z0-9]{1,64}$/, 'must be a mail id')).max(100),
});

/** Forgets mails the console sent; unknown ids are ignored. */
export async function completeMemberMails(pool: Pool, input: { ids: string[] }): Promise<void> {
  const v = parseOrThrow(CompleteInput, input);
  await deleteMemberMails(pool, v.ids);
}
