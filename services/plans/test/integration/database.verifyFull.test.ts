// Issue 43: verified TLS to PostgreSQL. A PostgreSQL this test starts with `ssl = on`, its
// own test CA's certificate and TLS-only pg_hba: the migrations and the plans service connect
// with sslmode=verify-full and DATABASE_SSL_CA_FILE; another CA, or a host name the
// certificate does not name, is refused, and readiness says which.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  createTestCa,
  REPO_ROOT,
  startPlans,
  startTlsPostgres,
  waitFor,
  type PlansProcess,
  type TestCa,
  type TlsPostgres,
} from '@brand/testkit';

let ca: TestCa;
let strangerCa: TestCa;
let pg: TlsPostgres;
const started: PlansProcess[] = [];

beforeAll(async () => {
  ca = createTestCa();
  strangerCa = createTestCa();
  pg = await startTlsPostgres(ca);
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  pg?.remove();
  ca?.remove();
  strangerCa?.remove();
}, 60_000);

/** plans' migration process (the chart's Job) with `env`; its exit status and stderr. */
function migrate(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'services/plans/dist/migrate.js')],
    {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: result.status, stderr: result.stderr };
}

async function plansWith(env: Record<string, string>): Promise<PlansProcess> {
  const plans = await startPlans({ databaseUrl: env.DATABASE_URL!, env });
  started.push(plans);
  return plans;
}

/** What the plans service's readiness says of its database, once it says anything but `not`. */
async function databaseState(plans: PlansProcess, not = 'unreachable'): Promise<string> {
  return waitFor(
    async () => {
      const res = await fetch(`${plans.opsUrl}/readyz`);
      const { checks } = (await res.json()) as { checks: { database: string } };
      return checks.database === not ? undefined : checks.database;
    },
    { timeoutMs: 20_000, intervalMs: 200, what: 'a database state' },
  );
}

it('migrations and the service connect with sslmode=verify-full and the CA file', async () => {
  const env = {
    DATABASE_URL: pg.url('localhost', 'sslmode=verify-full'),
    DATABASE_SSL_CA_FILE: ca.caFile,
  };
  expect(migrate(env)).toMatchObject({ status: 0 });
  const plans = await plansWith(env);
  expect(await databaseState(plans)).toBe('ok');
}, 60_000);

it('the server refuses a connection without TLS (the test is not fooled by plaintext)', () => {
  const result = migrate({ DATABASE_URL: pg.url('127.0.0.1', 'sslmode=disable') });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('no encryption');
});

it('another CA is refused, and readiness says the certificate is not trusted', async () => {
  const env = {
    DATABASE_URL: pg.url('localhost', 'sslmode=verify-full'),
    DATABASE_SSL_CA_FILE: strangerCa.caFile,
  };
  const migration = migrate(env);
  expect(migration.status).toBe(1);
  expect(migration.stderr).toMatch(/certificate/);
  const plans = await plansWith(env);
  expect(await databaseState(plans)).toMatch(/^tls: server certificate not trusted \([A-Z_]+\)$/);
}, 60_000);

it('a host name the certificate does not name is refused with verify-full, not with verify-ca', async () => {
  // 127.0.0.2 reaches the same server; the certificate names localhost, 127.0.0.1 and ::1
  const full = await plansWith({
    DATABASE_URL: pg.url('127.0.0.2', 'sslmode=verify-full'),
    DATABASE_SSL_CA_FILE: ca.caFile,
  });
  expect(await databaseState(full)).toBe('tls: server certificate does not name the host');
  const caOnly = await plansWith({
    DATABASE_URL: pg.url('127.0.0.2', 'sslmode=verify-ca'),
    DATABASE_SSL_CA_FILE: ca.caFile,
  });
  expect(await databaseState(caOnly)).toBe('ok');
}, 60_000);
