import { sendCounted, type MailSender } from './mailSender';

/** What one sign-in mail says: a link, the brands that admit single sign-on alone, or both. */
interface SignInMailContent {
  /** The one-time sign-in link; absent when every brand of the address requires single sign-on. */
  link?: string;
  /** Brands that require their single sign-on: a link does not open them; their SSO page does. */
  ssoOnly: { brandName: string; ssoUrl: string }[];
}

export interface SignInMailer {
  /** Sends a sign-in mail; rejects when the SMTP server refuses or is unreachable. */
  sendSignInMail(to: string, content: SignInMailContent): Promise<void>;
}

/** The lines pointing to each SSO-only brand's single sign-on page. */
function ssoLines(ssoOnly: SignInMailContent['ssoOnly']): string[] {
  return ssoOnly.map((b) => `${b.brandName}: ${b.ssoUrl}`);
}

/**
 * The mail's text. With a link: the link, and for brands that require single sign-on, that the
 * link does not open them and where to sign in instead. Without one (every brand of the address
 * requires its single sign-on): no link at all, only the way to each brand's single sign-on, so
 * nothing in the mailbox opens a session such a brand would refuse anyway.
 */
function textOf(publicOrigin: string, content: SignInMailContent): string[] {
  const sso = ssoLines(content.ssoOnly);
  if (content.link === undefined) {
    return [
      'Someone (we hope you) asked to sign in to the Developers area at',
      `${publicOrigin}.`,
      '',
      'Your brand requires single sign-on, so no sign-in link is sent: sign in through your',
      'organisation’s identity provider instead, here:',
      '',
      ...sso,
      '',
      'If you did not ask for it, ignore this message.',
    ];
  }
  return [
    'Someone (we hope you) asked to sign in to the Developers area at',
    `${publicOrigin}.`,
    '',
    'Open this link within 15 minutes to sign in. It works once:',
    '',
    content.link,
    '',
    ...(sso.length === 0
      ? []
      : [
          'These brands require single sign-on: the link does not open them. Sign in to them',
          'through your organisation’s identity provider instead:',
          '',
          ...sso,
          '',
        ]),
    'If you did not ask for it, ignore this message: nothing happens until the link is',
    'opened and confirmed.',
  ];
}

/** Sign-in mail: the one-time link and what to do with it, or the way to single sign-on. */
export function createSignInMailer(opts: {
  sender: MailSender;
  publicOrigin: string;
  /** Counts each send (metrics). */
  onOutcome?: (outcome: 'sent' | 'failed') => void;
}): SignInMailer {
  return {
    sendSignInMail: (to, content) =>
      sendCounted(
        opts.sender,
        {
          to,
          subject:
            content.link === undefined
              ? 'Sign in to the Developers area with single sign-on'
              : 'Your sign-in link for the Developers area',
          text: textOf(opts.publicOrigin, content).join('\n'),
        },
        opts.onOutcome,
      ),
  };
}
