import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@brand/shared/config';
import { runConsoleSettingsTests } from '@brand/testkit';
import { callerTokensFor, loadWebhooksConfig } from './config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const VALID = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/brand_records',
  INTERNAL_TOKEN: 'an-internal-token-of-32-characters',
  ADMIN_TOKEN: 'an-admin-token-of-at-least-32-characters',
  WEBHOOK_SECRET_KEY: KEY,
};

const problems = (env: Record<string, string>): string => {
  try {
    loadWebhooksConfig(env);
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('loadWebhooksConfig', () => {
  it('applies the documented defaults: all roles, the contract topic, loopback off', () => {
    expect(loadWebhooksConfig(VALID)).toMatchObject({
      WEBHOOKS_ROLES: ['admin', 'consumer', 'worker'],
      GRPC_PORT: 50053,
      BUSINESS_EVENTS_TOPIC: 'brand.business-events.v1',
      KAFKA_CONSUMER_GROUP: 'brand-webhooks',
      WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: false,
      WEBHOOK_MAX_RECEIVERS_PER_BRAND: 10,
      DELIVERY_TIMEOUT_MS: 30_000,
      DELIVERY_CONNECT_TIMEOUT_MS: 5_000,
      RETRY_TIME_SCALE: 1,
      RECOVERY_MAX_PER_REQUEST: 10_000,
      ATTEMPT_DETAIL_RETENTION_MS: 14 * 24 * 3600 * 1000,
      MAINTENANCE_INTERVAL_MS: 10_000,
      SWEEP_BATCH_SIZE: 1_000,
    });
  });

  it('times the consumer group to hand a crashed consumer’s partitions on within 6 s (issue 19)', () => {
    expect(loadWebhooksConfig(VALID)).toMatchObject({
      KAFKA_SESSION_TIMEOUT_MS: 6_000,
      KAFKA_HEARTBEAT_INTERVAL_MS: 1_000,
      KAFKA_REBALANCE_TIMEOUT_MS: 15_000,
    });
    expect(problems({ ...VALID, KAFKA_HEARTBEAT_INTERVAL_MS: '3000' })).toMatch(
      /KAFKA_HEARTBEAT_INTERVAL_MS: must be at most a third of KAFKA_SESSION_TIMEOUT_MS/,
    );
  });

  // The delivery worker talks to every brand's receivers and parses their answers: of all the
  // processes, the one whose compromise is likeliest. It answers no RPC, so it holds no
  // credential that would open the others (the chart gives it none).
  it('asks the caller credentials of the admin role only', () => {
    const { INTERNAL_TOKEN: _i, ADMIN_TOKEN: _a, ...withoutTokens } = VALID;
    const worker = loadWebhooksConfig({ ...withoutTokens, WEBHOOKS_ROLES: 'consumer,worker' });
    expect(callerTokensFor(worker)).toEqual({ internal: [], admin: [], console: [] });
    expect(problems({ ...withoutTokens, WEBHOOKS_ROLES: 'admin' })).toMatch(
      /INTERNAL_TOKEN: is required by the admin role[\s\S]*ADMIN_TOKEN: is required by the admin role/,
    );
    expect(problems(withoutTokens)).toMatch(/ADMIN_TOKEN: is required by the admin role/);
    expect(callerTokensFor(loadWebhooksConfig(VALID))).toMatchObject({
      internal: [VALID.INTERNAL_TOKEN],
      admin: [VALID.ADMIN_TOKEN],
    });
  });

  it('reads roles', () => {
    expect(loadWebhooksConfig({ ...VALID, WEBHOOKS_ROLES: 'worker' }).WEBHOOKS_ROLES).toEqual([
      'worker',
    ]);
    expect(problems({ ...VALID, WEBHOOKS_ROLES: 'worker,cook' })).toMatch(/WEBHOOKS_ROLES/);
  });

  it('refuses to start without a 32-byte secret key', () => {
    expect(problems({ ...VALID, WEBHOOK_SECRET_KEY: '' })).toMatch(/WEBHOOK_SECRET_KEY/);
    expect(problems({ ...VALID, WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString('base64') })).toMatch(
      /WEBHOOK_SECRET_KEY: must be 32 bytes/,
    );
    const { WEBHOOK_SECRET_KEY: _omitted, ...withoutKey } = VALID;
    expect(problems(withoutKey)).toMatch(/WEBHOOK_SECRET_KEY/);
  });

  it('refuses a published key and the loopback setting in production', () => {
    const published = 'dGVzdC13ZWJob29rLXNlY3JldC1rZXktMDEyMzQ1Njc=';
    expect(loadWebhooksConfig({ ...VALID, WEBHOOK_SECRET_KEY: published })).toBeDefined();
    expect(problems({ ...VALID, NODE_ENV: 'production', WEBHOOK_SECRET_KEY: published })).toMatch(
      /WEBHOOK_SECRET_KEY: a value published/,
    );
    expect(
      problems({ ...VALID, NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' }),
    ).toMatch(/WEBHOOK_ALLOW_LOOPBACK_RECEIVERS/);
  });

  it('requires the lease to outlast an attempt', () => {
    expect(
      problems({ ...VALID, DELIVERY_TIMEOUT_MS: '30000', DELIVERY_LEASE_MS: '20000' }),
    ).toMatch(/DELIVERY_LEASE_MS/);
  });
});

runConsoleSettingsTests(loadWebhooksConfig, VALID, 'CONSOLE_ASSERTION_PUBLIC_KEY');

describe('the console settings of this service', () => {
  it('read former public keys for a rotation', () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    const config = loadWebhooksConfig({
      ...VALID,
      CONSOLE_ASSERTION_PUBLIC_KEY: generateKeyPairSync('ed25519')
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString(),
      CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS: other.toString().replaceAll('\n', '\\n'),
    });
    expect(config.CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS).toHaveLength(1);
  });
});
