import { ConfigError } from '@brand/shared/config';
import { runConsoleSettingsTests } from '@brand/testkit';
import { loadRecordsConfig } from './config';

const VALID = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/brand_records',
  INTERNAL_TOKEN: 'an-internal-token-of-32-characters',
  ADMIN_TOKEN: 'an-admin-token-of-at-least-32-characters',
  CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-characters',
};

describe('loadRecordsConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadRecordsConfig(VALID)).toMatchObject({
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: 50051,
      DATABASE_POOL_MAX: 10,
      MIGRATE_ON_START: false,
      REDIS_KEY_PREFIX: 'brs:',
      CURSOR_SECRETS_PREVIOUS: [],
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: [],
      BUSINESS_EVENTS_TOPIC: 'brand.business-events.v1',
      OUTBOX_RELAY_ENABLED: true,
      OUTBOX_POLL_MS: 1_000,
      OUTBOX_BATCH_SIZE: 100,
      OUTBOX_MAX_BACKOFF_MS: 2_000,
    });
  });

  it('reads the Kafka brokers as a list and lets the relay be turned off', () => {
    const config = loadRecordsConfig({
      ...VALID,
      KAFKA_BROKERS: '10.0.0.1:9092, 10.0.0.2:9092',
      OUTBOX_RELAY_ENABLED: 'false',
    });
    expect(config.KAFKA_BROKERS).toEqual(['10.0.0.1:9092', '10.0.0.2:9092']);
    expect(config.OUTBOX_RELAY_ENABLED).toBe(false);
    expect(() => loadRecordsConfig({ ...VALID, OUTBOX_BATCH_SIZE: '0' })).toThrow(
      /OUTBOX_BATCH_SIZE/,
    );
  });

  it('reads single sign-on egress settings: extra https origins, the loopback test setting', () => {
    const config = loadRecordsConfig({
      ...VALID,
      SSO_EXTRA_ORIGINS: 'https://oauth2.googleapis.com, https://www.googleapis.com/',
    });
    expect(config.SSO_EXTRA_ORIGINS).toEqual([
      'https://oauth2.googleapis.com',
      'https://www.googleapis.com',
    ]);
    expect(config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS).toBe(false);
    for (const bad of ['http://oauth2.googleapis.com', 'https://x.example/token', 'nope'])
      expect(() => loadRecordsConfig({ ...VALID, SSO_EXTRA_ORIGINS: bad })).toThrow(
        /SSO_EXTRA_ORIGINS/,
      );
    expect(() =>
      loadRecordsConfig({
        ...VALID,
        NODE_ENV: 'production',
        WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
      }),
    ).toThrow(/WEBHOOK_ALLOW_LOOPBACK_RECEIVERS/);
  });

  it('splits previous cursor secrets on commas and drops blanks', () => {
    const config = loadRecordsConfig({ ...VALID, CURSOR_SECRETS_PREVIOUS: ' old-one , ,old-two,' });
    expect(config.CURSOR_SECRETS_PREVIOUS).toEqual(['old-one', 'old-two']);
  });

  it('names every missing or malformed variable at once', () => {
    let message = '';
    try {
      loadRecordsConfig({
        GRPC_PORT: 'http',
        MIGRATE_ON_START: 'sometimes',
        CURSOR_SECRET: 'short',
      });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    for (const name of [
      'GRPC_PORT',
      'MIGRATE_ON_START',
      'CURSOR_SECRET',
      'INTERNAL_TOKEN',
      'ADMIN_TOKEN',
      'DATABASE_URL',
    ]) {
      expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    }
  });

  it('refuses secrets published in the repository, in production only', () => {
    const published = {
      ...VALID,
      INTERNAL_TOKEN: 'local-dev-internal-token-change-me',
      ADMIN_TOKENS_PREVIOUS: 'test-admin-token-0123456789abcdef-0123456',
      CURSOR_SECRET: 'local-dev-cursor-secret-change-me-0123456789',
    };
    expect(() => loadRecordsConfig(published)).not.toThrow();
    let message = '';
    try {
      loadRecordsConfig({ ...published, NODE_ENV: 'production' });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of ['INTERNAL_TOKEN', 'ADMIN_TOKENS_PREVIOUS', 'CURSOR_SECRET']) {
      expect(message).toMatch(new RegExp(`^  ${name}: a value published in the repository`, 'm'));
    }
    // VALID's values are published too (this file); a deployment's own are accepted
    const own = {
      INTERNAL_TOKEN: 'i'.repeat(40),
      ADMIN_TOKEN: 'a'.repeat(40),
      CURSOR_SECRET: 'c'.repeat(40),
    };
    expect(() => loadRecordsConfig({ ...VALID, ...own, NODE_ENV: 'production' })).not.toThrow();
  });

  it('refuses tokens shorter than 32 characters', () => {
    expect(() => loadRecordsConfig({ ...VALID, ADMIN_TOKEN: 'short-token' })).toThrow(
      /ADMIN_TOKEN/,
    );
  });
});

runConsoleSettingsTests(loadRecordsConfig, VALID, 'CONSOLE_ASSERTION_PRIVATE_KEY');

describe('the console settings of this service', () => {
  it('default the sign-in and session durations and limits, and keep idle within absolute', () => {
    expect(loadRecordsConfig(VALID)).toMatchObject({
      SIGN_IN_LINK_TTL_MS: 15 * 60_000,
      SIGN_IN_LINKS_PER_ADDRESS_AND_CLIENT: 5,
      SIGN_IN_LINKS_PER_CLIENT: 20,
      SIGN_IN_LINK_WINDOW_MS: 15 * 60_000,
      SIGN_IN_MAIL_SPACING_MS: 60_000,
      SIGN_IN_MAIL_SPACING_MAX_MS: 15 * 60_000,
      SIGN_IN_MAIL_LEASE_MS: 60_000,
      CONSOLE_SESSION_IDLE_MS: 30 * 60_000,
      CONSOLE_SESSION_MAX_MS: 12 * 3600_000,
      SCIM_REQUESTS_PER_TOKEN: 3_000,
      SCIM_REQUEST_WINDOW_MS: 60_000,
    });
    expect(() =>
      loadRecordsConfig({
        ...VALID,
        CONSOLE_SESSION_IDLE_MS: '7200000',
        CONSOLE_SESSION_MAX_MS: '3600000',
      }),
    ).toThrow(/CONSOLE_SESSION_IDLE_MS/);
  });
});
