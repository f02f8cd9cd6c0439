import { startTlsRequired } from './mailSender';

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
