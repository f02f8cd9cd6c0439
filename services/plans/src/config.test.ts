import { ConfigError } from '@brand/shared/config';
import { runConsoleSettingsTests } from '@brand/testkit';
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

runConsoleSettingsTests(loadPlansConfig, VALID, 'CONSOLE_ASSERTION_PUBLIC_KEY');
