// The console's mail in production leaves over TLS only (mailSender.ts startTlsRequired): a
// real SMTP server that offers no STARTTLS, as when someone on the path stripped the offer, is
// sent nothing when TLS is required, and the mail when it is not (a local sink).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDevMailbox, type DevMailbox } from '../../src/mail/devMailbox';
import { createMailSender } from '../../src/mail/mailSender';

describe('a mail server that offers no STARTTLS (one an attacker on the path stripped)', () => {
  let mailbox: DevMailbox;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mail-sender-'));
    mailbox = await startDevMailbox({ dir, port: 0 });
  });
  afterAll(async () => {
    await mailbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const mail = { to: 'owner@brand.test', subject: 'Sign in', text: 'a link' };

  it('is sent nothing when TLS is required', async () => {
    const sender = createMailSender({
      smtpUrl: `smtp://127.0.0.1:${mailbox.port}`,
      from: 'console@brand.test',
      requireTls: true,
    });
    await expect(sender.send(mail)).rejects.toThrow(/STARTTLS/i);
    sender.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is sent the mail when it is not (development, a loopback relay)', async () => {
    const sender = createMailSender({
      smtpUrl: `smtp://127.0.0.1:${mailbox.port}`,
      from: 'console@brand.test',
      requireTls: false,
    });
    await sender.send(mail);
    sender.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
  });
});
