import { loadConsoleConfig } from './config';

const base = {
  CONSOLE_PUBLIC_URL: 'https://console.example.com',
  CONSOLE_TOKEN: 'a-console-token-of-at-least-32-characters',
  SMTP_URL: 'smtps://user:pass@smtp.example.com:465',
};

describe('console config', () => {
  it('reads a production-like environment with its defaults', () => {
    const c = loadConsoleConfig(base);
    expect(c.CONSOLE_PUBLIC_URL.origin).toBe('https://console.example.com');
    expect(c.HTTP_PORT).toBe(8090);
    expect(c.METRICS_PORT).toBe(9468);
    expect(c.METRICS_HOST).toBe('127.0.0.1');
    expect(c.SIGN_IN_MAIL_POLL_MS).toBe(1_000);
    expect(c.RECEIVER_NOTICE_INTERVAL_MS).toBe(15_000);
    expect(c.RECEIVER_NOTICE_LEASE_MS).toBe(60_000);
    expect(c.READY_WITHOUT_RECORDS).toBe(true);
    expect(
      loadConsoleConfig({ ...base, READY_WITHOUT_RECORDS: 'false' }).READY_WITHOUT_RECORDS,
    ).toBe(false);
  });

  it('bounds the receiver-notice lease as the webhooks service does (1 s to 10 min)', () => {
    expect(
      loadConsoleConfig({ ...base, RECEIVER_NOTICE_LEASE_MS: '5000' }).RECEIVER_NOTICE_LEASE_MS,
    ).toBe(5_000);
    for (const bad of ['999', '600001', '0', 'soon']) {
      expect(() => loadConsoleConfig({ ...base, RECEIVER_NOTICE_LEASE_MS: bad })).toThrow(
        /RECEIVER_NOTICE_LEASE_MS/,
      );
    }
  });

  it('admits plain HTTP only on loopback, where browsers still keep Secure cookies', () => {
    for (const url of ['http://127.0.0.1:8090', 'http://localhost:8090']) {
      expect(
        loadConsoleConfig({ ...base, CONSOLE_PUBLIC_URL: url }).CONSOLE_PUBLIC_URL.origin,
      ).toBe(url);
    }
    expect(() =>
      loadConsoleConfig({ ...base, CONSOLE_PUBLIC_URL: 'http://console.example.com' }),
    ).toThrow(/CONSOLE_PUBLIC_URL: must be https unless/);
  });

  it('refuses a public URL with a path, and missing SMTP or credential', () => {
    expect(() =>
      loadConsoleConfig({ ...base, CONSOLE_PUBLIC_URL: 'https://example.com/console' }),
    ).toThrow(/origin only/);
    expect(() => loadConsoleConfig({ ...base, SMTP_URL: undefined })).toThrow(/SMTP_URL/);
    expect(() => loadConsoleConfig({ ...base, CONSOLE_TOKEN: 'short' })).toThrow(/CONSOLE_TOKEN/);
  });

  it('refuses the published test credential in production', () => {
    const env = {
      ...base,
      NODE_ENV: 'production',
      CONSOLE_TOKEN: 'test-console-token-0123456789abcdef-01234',
    };
    expect(() => loadConsoleConfig(env)).toThrow(/CONSOLE_TOKEN: a value published/);
  });
});
