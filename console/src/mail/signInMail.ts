import { sendCounted, type MailSender } from './mailSender';

export interface SignInMailer {
  /** Sends the one-time sign-in link; rejects when the SMTP server refuses or is unreachable. */
  sendSignInLink(to: string, link: string): Promise<void>;
}

/** Sign-in mail: the one-time link and what to do with it. */
export function createSignInMailer(opts: {
  sender: MailSender;
  publicOrigin: string;
  /** Counts each send (metrics). */
  onOutcome?: (outcome: 'sent' | 'failed') => void;
}): SignInMailer {
  return {
    sendSignInLink: (to, link) =>
      sendCounted(
        opts.sender,
        {
          to,
          subject: 'Your sign-in link for the Developers area',
          text: [
            'Someone (we hope you) asked to sign in to the Developers area at',
            `${opts.publicOrigin}.`,
            '',
            'Open this link within 15 minutes to sign in. It works once:',
            '',
            link,
            '',
            'If you did not ask for it, ignore this message: nothing happens until the link is',
            'opened and confirmed.',
          ].join('\n'),
        },
        opts.onOutcome,
      ),
  };
}
