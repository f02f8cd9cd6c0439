// Issue 43: rediss:// with a private CA. A redis-server this test starts with TLS only
// (--port 0 --tls-port) and its own test CA's certificate: the shared client and the gateway
// connect with REDIS_TLS_CA_FILE; another CA, or a host name the certificate does not name,
// is refused, and the gateway's detailed readiness says which.
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, waitUntilReady } from '@brand/shared/redis';
import {
  createTestCa,
  startGateway,
  startTlsRedis,
  uniqueRedisPrefix,
  waitFor,
  type GatewayProcess,
  type TestCa,
  type TlsRedis,
} from '@brand/testkit';

let ca: TestCa;
let strangerCa: TestCa;
let redis: TlsRedis;
const gateways: GatewayProcess[] = [];
const log = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  ca = createTestCa();
  strangerCa = createTestCa();
  redis = await startTlsRedis(ca);
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await redis?.stop();
  ca?.remove();
  strangerCa?.remove();
}, 60_000);

/** A gateway on this Redis (no records service: only its Redis check matters here). */
async function gatewayWith(url: string, caFile: string): Promise<GatewayProcess> {
  const gateway = await startGateway({
    recordsAddr: '127.0.0.1:9',
    redisUrl: url,
    redisKeyPrefix: uniqueRedisPrefix(),
    env: { REDIS_TLS_CA_FILE: caFile },
  });
  gateways.push(gateway);
  return gateway;
}

async function redisCheck(gateway: GatewayProcess, not: string): Promise<string> {
  return waitFor(
    async () => {
      const res = await fetch(`${gateway.opsUrl}/readyz`);
      const { checks } = (await res.json()) as { checks: { redis: string } };
      return checks.redis === not ? undefined : checks.redis;
    },
    { timeoutMs: 20_000, intervalMs: 200, what: 'a Redis state' },
  );
}

it('the shared client speaks rediss:// verified against the CA file', async () => {
  const client = createRedisClient({
    url: redis.url('localhost'),
    tlsCaFile: ca.caFile,
    name: 'tls-test',
    log,
    queueWhileOffline: false,
  });
  try {
    expect(await waitUntilReady(client, 5_000)).toBe(true);
    await client.set('tls-test', 'over TLS');
    expect(await client.get('tls-test')).toBe('over TLS');
  } finally {
    await closeRedis(client);
  }
});

it('the gateway connects with REDIS_TLS_CA_FILE', async () => {
  const gateway = await gatewayWith(redis.url('127.0.0.1'), ca.caFile);
  expect(await redisCheck(gateway, 'degraded')).toBe('ok');
}, 60_000);

it('another CA is refused, and readiness says the certificate is not trusted', async () => {
  const gateway = await gatewayWith(redis.url('localhost'), strangerCa.caFile);
  expect(await redisCheck(gateway, 'degraded')).toMatch(
    /^degraded: tls: server certificate not trusted \([A-Z_]+\)$/,
  );
}, 60_000);

it('a host name the certificate does not name is refused', async () => {
  const gateway = await gatewayWith(redis.url('127.0.0.2'), ca.caFile);
  expect(await redisCheck(gateway, 'degraded')).toBe(
    'degraded: tls: server certificate does not name the host',
  );
}, 60_000);
