import type { Mail, MailSender } from './mailSender';
import { createSignInMailer } from './signInMail';

/** A mailer whose sender keeps what it was handed. */
function mailerKeeping(): { sent: Mail[]; mailer: ReturnType<typeof createSignInMailer> } {
  const sent: Mail[] = [];
  const sender: MailSender = { send: (m) => Promise.resolve(void sent.push(m)), close: () => {} };
  return { sent, mailer: createSignInMailer({ sender, publicOrigin: 'https://console.test' }) };
}

const LINK = `https://console.test/sign-in/${'a'.repeat(43)}`;
const SSO = { brandName: 'Acme', ssoUrl: 'https://console.test/sign-in/sso?brand=br_acme' };

describe('the sign-in mail', () => {
  it('carries the link alone when no brand of the address requires single sign-on', async () => {
    const { sent, mailer } = mailerKeeping();
    await mailer.sendSignInMail('a@b.test', { link: LINK, ssoOnly: [] });
    expect(sent[0]!.subject).toBe('Your sign-in link for the Developers area');
    expect(sent[0]!.text).toContain(LINK);
    expect(sent[0]!.text).not.toContain('single sign-on');
  });

  it('carries no link when every brand requires single sign-on, only the way to it', async () => {
    const { sent, mailer } = mailerKeeping();
    await mailer.sendSignInMail('a@b.test', { ssoOnly: [SSO] });
    expect(sent[0]!.subject).toBe('Sign in to the Developers area with single sign-on');
    expect(sent[0]!.text).toContain(`Acme: ${SSO.ssoUrl}`);
    expect(sent[0]!.text).not.toMatch(/\/sign-in\/[A-Za-z0-9_-]{43}/);
  });

  it('says which brands the link does not open, and where to sign in to them', async () => {
    const { sent, mailer } = mailerKeeping();
    await mailer.sendSignInMail('a@b.test', { link: LINK, ssoOnly: [SSO] });
    const text = sent[0]!.text;
    expect(text.indexOf(LINK)).toBeLessThan(text.indexOf(SSO.ssoUrl));
    expect(text).toContain('These brands require single sign-on: the link does not open them.');
  });
});
