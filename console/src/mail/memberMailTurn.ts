import type { MemberMail } from '@brand/proto/access/v1/invitations';
import type { Logger } from '@brand/shared/logger';
import type { PollTurn } from '../background/pollLoop';
import type { ConsoleClients } from '../clients/consoleClients';
import { refusedForGood, sendCounted, type MailSender } from './mailSender';
import { memberMailOf } from './memberMail';

/** Member mails claimed per turn; a full turn is followed by another at once. */
export const MEMBER_MAIL_BATCH = 20;

/**
 * One turn of sending the mail records asks for on members' behalf (issue 59): invitations to
 * the invited address, and owners' notices (a new identity provider, a domain's DNS proof
 * missing). It leases a batch (ClaimMemberMails), sends each, and confirms those sent
 * (CompleteMemberMails); a mail that fails is not confirmed and comes back when its lease ends,
 * to this console or another, so nothing accepted is lost. A mail the server refuses for good is
 * confirmed (and logged), as is one of a kind this console does not know.
 */
export function memberMailTurn(opts: {
  clients: Pick<ConsoleClients, 'invitations'>;
  sender: MailSender;
  publicOrigin: string;
  log: Logger;
  leaseMs: number;
  onOutcome?: (outcome: 'sent' | 'failed') => void;
}): PollTurn {
  const send = async (mail: MemberMail): Promise<string | undefined> => {
    const content = memberMailOf(mail, opts.publicOrigin);
    if (!content) {
      opts.log.warn({ mail_id: mail.id, kind: mail.kind }, 'a member mail of an unknown kind');
      return undefined;
    }
    try {
      await sendCounted(opts.sender, { to: mail.email, ...content }, opts.onOutcome);
      return mail.id;
    } catch (err) {
      const forGood = refusedForGood(err);
      opts.log.warn(
        { err, mail_id: mail.id, kind: mail.kind },
        forGood
          ? 'the mail server refused a member mail for good'
          : 'member mail not sent; it is claimed again when its lease ends',
      );
      return forGood ? mail.id : undefined;
    }
  };

  return async () => {
    const { mails } = await opts.clients.invitations('claimMemberMails', {
      limit: MEMBER_MAIL_BATCH,
      lease_ms: opts.leaseMs,
    });
    const done = (await Promise.all(mails.map(send))).filter((id) => id !== undefined);
    if (done.length > 0) await opts.clients.invitations('completeMemberMails', { ids: done });
    return mails.length;
  };
}
