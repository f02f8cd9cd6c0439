import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@brand/shared/config';
import { loadPlansConfig } from './config';

const VALID = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/brand_records',
  INTERNAL_TOKEN: 'an-internal-token-of-32-characters',
  ADMIN_TOKEN: 'an-admin-token-of-at-least-32-characters',
};

describe('loadPlansConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadPlansConfig(VALID)).toMatchObject({
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: 50052,
      METRICS_PORT: 9466,
      PENDING_PLAN_LIMIT: 200,
      MIGRATE_ON_START: false,
      LOG_LEVEL: 'info',
    });
  });

  it('reads PENDING_PLAN_LIMIT and refuses a limit below 1', () => {
    expect(loadPlansConfig({ ...VALID, PENDING_PLAN_LIMIT: '3' }).PENDING_PLAN_LIMIT).toBe(3);
    expect(() => loadPlansConfig({ ...VALID, PENDING_PLAN_LIMIT: '0' })).toThrow(ConfigError);
  });

  it('refuses published secrets in production', () => {
    expect(() =>
      loadPlansConfig({
        ...VALID,
        NODE_ENV: 'production',
        INTERNAL_TOKEN: 'test-internal-token-0123456789abcdef-0123',
      }),
    ).toThrow(/INTERNAL_TOKEN/);
  });
});

describe('the console settings', () => {
  const pair = generateKeyPairSync('ed25519');
  const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const CONSOLE_TOKEN = 'a-console-token-of-at-least-32-characters';

  it('leave the console off by default', () => {
    const config = loadPlansConfig(VALID);
    expect(config.CONSOLE_TOKEN).toBeUndefined();
    expect(config.CONSOLE_ASSERTION_PUBLIC_KEY).toBeUndefined();
  });

  it('read the token and the PEM key, also with its newlines written as \\n', () => {
    for (const value of [pem, pem.replaceAll('\n', '\\n')]) {
      const config = loadPlansConfig({
        ...VALID,
        CONSOLE_TOKEN,
        CONSOLE_ASSERTION_PUBLIC_KEY: value,
      });
      expect(config.CONSOLE_TOKEN).toBe(CONSOLE_TOKEN);
      expect(config.CONSOLE_ASSERTION_PUBLIC_KEY?.asymmetricKeyType).toBe('ed25519');
    }
  });

  it('refuse a console token without the key, a bad key, and a short token', () => {
    expect(() => loadPlansConfig({ ...VALID, CONSOLE_TOKEN })).toThrow(
      /CONSOLE_ASSERTION_PUBLIC_KEY/,
    );
    expect(() =>
      loadPlansConfig({ ...VALID, CONSOLE_TOKEN, CONSOLE_ASSERTION_PUBLIC_KEY: 'not a key' }),
    ).toThrow(/CONSOLE_ASSERTION_PUBLIC_KEY/);
    expect(() =>
      loadPlansConfig({ ...VALID, CONSOLE_TOKEN: 'short', CONSOLE_ASSERTION_PUBLIC_KEY: pem }),
    ).toThrow(/CONSOLE_TOKEN/);
  });

  it('refuse the published test console token in production', () => {
    expect(() =>
      loadPlansConfig({
        ...VALID,
        NODE_ENV: 'production',
        CONSOLE_TOKEN: 'test-console-token-0123456789abcdef-01234',
        CONSOLE_ASSERTION_PUBLIC_KEY: pem,
      }),
    ).toThrow(/CONSOLE_TOKEN/);
  });
});
