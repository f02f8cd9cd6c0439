import { ConnectionForm, SsoStartForm } from './input';

const messagesOf = (r: { error?: { issues: { message: string }[] } }) =>
  r.error?.issues.map((i) => i.message);

describe('SsoStartForm', () => {
  it('says an address too long in words, not "Invalid input"', () => {
    const email = `${'a'.repeat(10_000)}@brand.example`;
    expect(messagesOf(SsoStartForm.safeParse({ email }))).toEqual([
      'An email address is at most 254 characters.',
    ]);
  });

  it('takes a blank address (a brand link) or a work address, and refuses anything else in words', () => {
    expect(SsoStartForm.parse({ email: '', brand: 'br_demo' })).toEqual({
      email: '',
      brand: 'br_demo',
    });
    expect(SsoStartForm.parse({ email: ' Ada@Brand.Example ' }).email).toBe('ada@brand.example');
    expect(messagesOf(SsoStartForm.safeParse({ email: 'not an address' }))).toEqual([
      'Enter your work email address.',
    ]);
    expect(messagesOf(SsoStartForm.safeParse({ email: '', brand: 'br_<x>' }))).toEqual([
      'That sign-in link names no brand.',
    ]);
  });
});

describe('ConnectionForm', () => {
  const good = {
    issuer: 'https://login.example.com',
    client_id: 'console',
    client_secret: 's',
    allowed_domains: 'example.com',
  };
  const long = 'x'.repeat(10_000);

  it('says a field too long in a sentence naming the field and the limit', () => {
    const cases: [string, string][] = [
      ['issuer', 'The issuer is at most 512 characters.'],
      ['client_id', 'The client id is at most 255 characters.'],
      ['client_secret', 'The client secret is at most 1024 characters.'],
      ['allowed_domains', 'The allowed email domains are at most 2000 characters in all.'],
    ];
    for (const [field, sentence] of cases) {
      const messages = messagesOf(ConnectionForm.safeParse({ ...good, [field]: long }));
      expect({ field, messages }).toEqual({ field, messages: [sentence] });
    }
  });
});
