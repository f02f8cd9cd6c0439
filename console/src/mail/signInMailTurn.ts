import type { SignInMail } from '@brand/proto/access/v1/sessions';
import type { Logger } from '@brand/shared/logger';
import type { PollTurn } from '../background/pollLoop';
import type { ConsoleClients } from '../clients/consoleClients';
import { refusedForGood } from './mailSender';
import type { SignInMailer } from './signInMail';

/** Sign-in mails claimed per turn; a full turn is followed by another at once. */
export const SIGN_IN_MAIL_BATCH = 20;

/**
 * One turn of sending sign-in mails, apart from any request's answer: POST /sign-in only has
 * records store the request, so its answer takes as long for a stranger as for a member (issue
 * 23). A turn claims the mails due from records (ClaimSignInMails: a new link per member's
 * address, nothing for strangers), hands each to the mail server, and confirms those sent
 * (CompleteSignInMails). A mail that fails is not confirmed: records leases it and hands it out
 * again, to this console or another, so an accepted request is never lost to a failed send or
 * to a console that dies. A mail the server refuses for good is confirmed too (and logged), so
 * it is not retried for an hour.
 */
export function signInMailTurn(opts: {
  clients: Pick<ConsoleClients, 'sessions'>;
  mailer: SignInMailer;
  publicOrigin: string;
  log: Logger;
}): PollTurn {
  const send = async (mail: SignInMail) => {
    try {
      await opts.mailer.sendSignInMail(mail.email, {
        // No token: every brand of the address requires its single sign-on alone.
        link: mail.token === '' ? undefined : `${opts.publicOrigin}/sign-in/${mail.token}`,
        ssoOnly: mail.sso_only_brands.map((b) => ({
          brandName: b.brand_name,
          ssoUrl: `${opts.publicOrigin}/sign-in/sso?brand=${encodeURIComponent(b.brand_id)}`,
        })),
      });
      return mail.claim_id;
    } catch (err) {
      const forGood = refusedForGood(err);
      opts.log.warn(
        { err, claim_id: mail.claim_id },
        forGood
          ? 'the mail server refused a sign-in mail for good'
          : 'sign-in mail not sent; it is claimed again when its lease ends',
      );
      return forGood ? mail.claim_id : undefined;
    }
  };

  return async () => {
    const { mails } = await opts.clients.sessions('claimSignInMails', {
      max_mails: SIGN_IN_MAIL_BATCH,
    });
    // Every claimed mail is sent, even at shutdown: they are few, and each waits on SMTP only.
    const done = (await Promise.all(mails.map(send))).filter((id) => id !== undefined);
    if (done.length > 0) {
      await opts.clients.sessions('completeSignInMails', { claim_ids: done });
    }
    return mails.length;
  };
}
