import { RESOURCES } from '@brand/shared/resources';
import {
  createAdminClient,
  createTestDatabase,
  freeRedisPrefixKeys,
  makeBrandWithKey,
  makeRecords,
  startGateway,
  startRecords,
  stopAllServices,
  tcpProxy,
  uniqueRedisPrefix,
  waitFor,
  type AdminClient,
  type GatewayProcess,
  type RecordsProcess,
  type TcpProxy,
  type TestDatabase,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import { opsReadiness } from '../support/ops';
import type { ErrorBody } from '../../src/http/errorResponse';

// Issue 2, behaviour 9 (records and PostgreSQL): a backing failure is a clean 503
// service_unavailable within the gateway's deadline, never a 5xx with internals.
// The records service reaches PostgreSQL through a TCP proxy the test can pause.

const GRPC_DEADLINE_MS = 1_500;

let db: TestDatabase;
let pgProxy: TcpProxy;
let records: RecordsProcess;
let gateway: GatewayProcess;
let admin: AdminClient;
let prefix: string;
let api: ApiClient;
let cachedKey: string;
let brandId: string;
let ownerEmail: string;

/** A key of the test brand that no gateway has seen yet, so using it needs a lookup. */
async function newKey(): Promise<string> {
  return (await admin.createKey({ brandId, actorEmail: ownerEmail })).secret;
}

async function timedGet(path: string, key?: string) {
  const started = Date.now();
  const res = await api.get<ErrorBody>(path, { key });
  return { res, ms: Date.now() - started };
}

/** A 503 as clients must see it: our code, a wait to honour, and nothing from inside. */
function expectCleanUnavailable(res: ApiResponse<ErrorBody>): void {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe('service_unavailable');
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id']);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  const leaks = [
    /\bat .+:\d+:\d+/, // a stack frame
    /\.(?:js|ts):\d+/,
    /\b(?:select|insert|update|delete)\b.+\bfrom\b|\bwhere\b/i,
    /postgres|\bpg\b|sqlstate|relation|ECONN|ETIMEDOUT|grpc|14 UNAVAILABLE|DEADLINE/i,
    /\b\d{1,3}(?:\.\d{1,3}){3}\b|localhost|:\d{2,5}\b/, // hosts and ports
  ];
  for (const leak of leaks) expect(res.text).not.toMatch(leak);
}

/** Readiness with its checks, from the internal listener (the public port has no probe). */
function readiness(): ReturnType<typeof opsReadiness> {
  return opsReadiness(gateway);
}

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(db.url);
  pgProxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  prefix = uniqueRedisPrefix();
  records = await startRecords({ databaseUrl: pgProxy.rewrite(db.url), redisKeyPrefix: prefix });
  gateway = await startGateway({
    recordsAddr: records.address,
    redisKeyPrefix: prefix,
    env: { GRPC_DEADLINE_MS: String(GRPC_DEADLINE_MS) },
  });
  admin = createAdminClient(records.address);
  api = new ApiClient(gateway.url);
  const brand = await makeBrandWithKey(admin, { tier: 'enterprise' });
  cachedKey = brand.secret;
  brandId = brand.brand.id;
  ownerEmail = brand.owner.email;
  await makeRecords(db.pool, brandId, 'campaigns', 3);
  await waitFor(async () => (await readiness()).status === 200, { what: 'gateway ready' });
});

afterAll(async () => {
  if (records) {
    try {
      process.kill(records.pid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  await stopAllServices();
  admin?.close();
  await pgProxy?.close();
  await db?.close();
  if (prefix) await freeRedisPrefixKeys(prefix).catch(() => undefined);
});

describe('PostgreSQL unreachable from the records service', () => {
  it('REST answers 503 service_unavailable at once, with no SQL, stack or address in it', async () => {
    const warm = await api.get('/api/v1/campaigns', { key: cachedKey });
    expect(warm.status).toBe(200);
    const uncached = await newKey();

    await pgProxy.pause();
    try {
      for (const resource of RESOURCES) {
        const { res, ms } = await timedGet(`/api/v1/${resource}`, cachedKey);
        expectCleanUnavailable(res);
        expect(ms).toBeLessThan(GRPC_DEADLINE_MS);
      }
      // a key that must be looked up fails the same way, not as invalid_key
      const { res, ms } = await timedGet('/api/v1/campaigns', uncached);
      expectCleanUnavailable(res);
      expect(ms).toBeLessThan(GRPC_DEADLINE_MS);

      await waitFor(
        async () => {
          const ready = await readiness();
          return ready.status === 503 && ready.body.checks.records === 'unavailable';
        },
        { what: '/readyz 503 while the database is down' },
      );
    } finally {
      await pgProxy.resume();
    }
  });

  it('answers 200 again once PostgreSQL is reachable', async () => {
    const res = await waitFor(
      async () => {
        const r = await api.get<{ count: number }>('/api/v1/campaigns', { key: cachedKey });
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'campaigns 200 after resume' },
    );
    expect(res.body.count).toBe(3);
    expect((await api.get('/api/v1/campaigns', { key: await newKey() })).status).toBe(200);
    await waitFor(async () => (await readiness()).status === 200, { what: '/readyz 200' });
  });
});

describe('the records service stops answering', () => {
  it('a hung records process: 503 when the gRPC deadline passes, not later', async () => {
    const uncached = await newKey();
    process.kill(records.pid, 'SIGSTOP');
    try {
      const results = await Promise.all([
        timedGet('/api/v1/campaigns', cachedKey),
        timedGet('/api/v1/links', uncached),
      ]);
      for (const { res, ms } of results) {
        expectCleanUnavailable(res);
        // the deadline, not something sooner or a client timeout, ended the wait
        expect(ms).toBeGreaterThanOrEqual(GRPC_DEADLINE_MS - 50);
        expect(ms).toBeLessThan(GRPC_DEADLINE_MS + 1_000);
      }
      const ready = await readiness();
      expect(ready.status).toBe(503);
      expect(ready.body.checks.records).toBe('unavailable');
    } finally {
      process.kill(records.pid, 'SIGCONT');
    }
    await waitFor(
      async () => (await api.get('/api/v1/campaigns', { key: cachedKey })).status === 200,
      { what: 'records answering again after SIGCONT' },
    );
  });

  it('a killed records process: 503 service_unavailable within the deadline; /readyz 503', async () => {
    const uncached = await newKey();
    await records.kill();
    for (const [path, key] of [
      ['/api/v1/campaigns', cachedKey],
      ['/api/v1/payouts', cachedKey],
      ['/api/v1/campaigns', uncached],
    ] as const) {
      const { res, ms } = await timedGet(path, key);
      expectCleanUnavailable(res);
      expect(ms).toBeLessThan(GRPC_DEADLINE_MS + 1_000);
    }
    const ready = await readiness();
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', checks: { records: 'unavailable' } });
    // the gateway itself is alive: liveness must not restart it for a dependency's outage
    expect((await fetch(`${gateway.opsUrl}/healthz`)).status).toBe(200);
  });
});
