import nodemailer from 'nodemailer';

export interface SignInMailer {
  /** Sends the one-time sign-in link; rejects when the SMTP server refuses or is unreachable. */
  sendSignInLink(to: string, link: string): Promise<void>;
  close(): void;
}

/**
 * Sign-in mail over SMTP (SMTP_URL: smtp://host:port, smtps://user:pass@host:465, ...) with
 * nodemailer. Plain text only: nothing in a sign-in mail needs markup, and text survives
 * every client and scanner.
 */
export function createSignInMailer(opts: {
  smtpUrl: string;
  from: string;
  publicOrigin: string;
  /** Counts each send (metrics). */
  onOutcome?: (outcome: 'sent' | 'failed') => void;
}): SignInMailer {
  const transport = nodemailer.createTransport(opts.smtpUrl);
  return {
    async sendSignInLink(to, link) {
      await send(to, link).then(
        () => opts.onOutcome?.('sent'),
        (err: unknown) => {
          opts.onOutcome?.('failed');
          throw err;
        },
      );
    },
    close: () => transport.close(),
  };

  async function send(to: string, link: string): Promise<void> {
    await transport.sendMail({
      from: opts.from,
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
    });
  }
}
