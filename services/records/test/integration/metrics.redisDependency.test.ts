// BrandRecordsRedisUnreachable reads dependency_up{dependency="redis"}: records keeps its
// revocations, the single sign-on logout ledger and the sign-in and SCIM rate limits in Redis, so
// its /metrics must say when it cannot reach it (a platform review found only kafka reported).
// Real records, real Redis behind a TCP proxy the test pauses, as a managed Redis fails over.
import {
  scrapeMetric,
  startRecords,
  startStack,
  stopAllServices,
  tcpProxy,
  testRedisUrl,
  waitFor,
  type RecordsProcess,
  type Stack,
  type TcpProxy,
} from '@brand/testkit';

const REDIS_UP = /^dependency_up\{dependency="redis"\} /;

let stack: Stack;
let proxy: TcpProxy;
let records: RecordsProcess;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  const target = new URL(testRedisUrl());
  proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  records = await startRecords({
    databaseUrl: stack.db.url,
    redisUrl: proxy.rewrite(testRedisUrl()),
    redisKeyPrefix: stack.redisKeyPrefix,
  });
});
afterAll(async () => {
  await stopAllServices();
  await stack?.close();
  await proxy?.close();
});

/** The series' lines, so a missing series fails as "no line" rather than as a 0. */
async function redisSeries(): Promise<string[]> {
  const text = await (await fetch(`${records.opsUrl}/metrics`)).text();
  return text.split('\n').filter((line) => REDIS_UP.test(line));
}

describe("records' dependency_up for Redis", () => {
  it('is 1 while Redis answers, 0 while it does not, and 1 again once it is back', async () => {
    await waitFor(
      async () => (await redisSeries()).join() === 'dependency_up{dependency="redis"} 1',
      {
        timeoutMs: 10_000,
        what: 'dependency_up{dependency="redis"} 1 with Redis up',
      },
    );

    await proxy.pause();
    await waitFor(async () => (await scrapeMetric(records.opsUrl, REDIS_UP)) === 0, {
      timeoutMs: 10_000,
      what: 'dependency_up{dependency="redis"} 0 with Redis unreachable',
    });
    expect(await redisSeries()).toEqual(['dependency_up{dependency="redis"} 0']);
    // readiness's body names it too (the chart's probes use grpc.health.v1, which Redis leaves alone)
    const ready = (await (await fetch(`${records.opsUrl}/readyz`)).json()) as {
      checks: Record<string, string>;
    };
    expect(ready.checks.redis).toBe('unreachable');

    await proxy.resume();
    await waitFor(async () => (await scrapeMetric(records.opsUrl, REDIS_UP)) === 1, {
      timeoutMs: 10_000,
      what: 'dependency_up{dependency="redis"} 1 once Redis is back',
    });
  });
});
