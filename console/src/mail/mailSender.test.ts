import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDevMailbox, type DevMailbox } from './devMailbox';
import { createMailSender, startTlsRequired } from './mailSender';

describe('startTlsRequired', () => {
  it.each([
    ['smtp://mail.example.com:587', 'production', true],
    ['smtp://user:pw@mail.example.com:25', 'production', true],
    ['smtps://user:pw@mail.example.com:465', 'production', false],
    ['smtp://127.0.0.1:2525', 'production', false],
    ['smtp://localhost:25', 'production', false],
    ['smtp://[::1]:25', 'production', false],
    ['smtp://mail.example.com:587', 'development', false],
  ])('%s in %s: %s', (url, env, required) => {
    expect(startTlsRequired(url, { nodeEnv: env, allowPlaintext: false })).toBe(required);
  });

  it('is not, for a sink the operator allows plain SMTP to (SMTP_ALLOW_PLAINTEXT)', () => {
    expect(
      startTlsRequired('smtp://mailbox:2525', { nodeEnv: 'production', allowPlaintext: true }),
    ).toBe(false);
  });
});

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
