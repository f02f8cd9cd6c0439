import nodemailer from 'nodemailer';
import { namesLoopback } from '@brand/shared/egress';

/** One plain-text message. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface MailSender {
  /** Hands the message to the SMTP server; rejects when it refuses or is unreachable. */
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * The console's one SMTP connection setting (SMTP_URL: smtp://host:port,
 * smtps://user:pass@host:465, ...) with nodemailer, for every mail it sends: sign-in links
 * and receiver notices. Plain text only: nothing the console mails needs markup, and text
 * survives every client and scanner.
 */
export function createMailSender(opts: {
  smtpUrl: string;
  from: string;
  /** Refuse to send unless the server upgrades the connection with STARTTLS (startTlsRequired). */
  requireTls: boolean;
}): MailSender {
  // Bounded well within the leases on claimed mail (a minute), so a hanging mail server fails
  // the send (and the mail is claimed again) rather than outliving the lease.
  const transport = nodemailer.createTransport({
    url: opts.smtpUrl,
    requireTLS: opts.requireTls,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: opts.from, ...mail });
    },
    close: () => transport.close(),
  };
}

/**
 * Whether mail over `smtpUrl` must be upgraded with STARTTLS: in production, for smtp:// to any
 * host but this machine's. nodemailer otherwise upgrades only when the server offers it, so
 * whoever sits on the path can strip the offer and read the SMTP password and every sign-in
 * link in the clear (a review of 2026-11-29). smtps:// is TLS from the start; a relay on
 * loopback (a sidecar) is not on any network.
 */
export function startTlsRequired(
  smtpUrl: string,
  settings: { nodeEnv: string; allowPlaintext: boolean },
): boolean {
  const url = new URL(smtpUrl);
  if (settings.nodeEnv !== 'production' || settings.allowPlaintext) return false;
  return url.protocol === 'smtp:' && !namesLoopback(url);
}

/** Counts each send's outcome (a metric) around `send`, and passes a failure on. */
export async function sendCounted(
  sender: MailSender,
  mail: Mail,
  onOutcome: ((outcome: 'sent' | 'failed') => void) | undefined,
): Promise<void> {
  try {
    await sender.send(mail);
  } catch (err) {
    onOutcome?.('failed');
    throw err;
  }
  onOutcome?.('sent');
}

/** A refusal the mail server will repeat (SMTP 5xx, e.g. no such mailbox): retrying is pointless. */
export function refusedForGood(err: unknown): boolean {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
