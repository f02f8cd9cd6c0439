// BrandRecordsRedisUnreachable reads dependency_up{dependency="redis"}: the webhooks worker's
// consumer publishes the events feed's versions to Redis (the gateway's 304 of a feed page), so
// its /metrics must say when it cannot reach it (a platform review found only kafka reported).
// A real worker, the test broker, real Redis behind a TCP proxy the test pauses.
import {
  createTestDatabase,
  createTopic,
  deleteTopic,
  scrapeMetric,
  startWebhooks,
  stopAllServices,
  tcpProxy,
  testRedisUrl,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type TcpProxy,
  type TestDatabase,
  type WebhooksProcess,
} from '@brand/testkit';

const REDIS_UP = /^dependency_up\{dependency="redis"\} /;

let db: TestDatabase;
let proxy: TcpProxy;
let webhooks: WebhooksProcess;
const topic = uniqueTopic('redis-dependency');

beforeAll(async () => {
  db = await createTestDatabase();
  await createTopic(topic);
  const target = new URL(testRedisUrl());
  proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  webhooks = await startWebhooks({
    databaseUrl: db.url,
    topic,
    groupId: uniqueConsumerGroup('redis-dependency'),
    redisUrl: proxy.rewrite(testRedisUrl()),
  });
}, 60_000);
afterAll(async () => {
  await stopAllServices();
  await proxy?.close();
  await db?.close();
  await deleteTopic(topic).catch(() => undefined);
});

/** The series' lines, so a missing series fails as "no line" rather than as a 0. */
async function redisSeries(): Promise<string[]> {
  const text = await (await fetch(`${webhooks.opsUrl}/metrics`)).text();
  return text.split('\n').filter((line) => REDIS_UP.test(line));
}

describe("the webhooks worker's dependency_up for Redis", () => {
  it('is 1 while Redis answers, 0 while it does not, and 1 again once it is back', async () => {
    await waitFor(
      async () => (await redisSeries()).join() === 'dependency_up{dependency="redis"} 1',
      { timeoutMs: 10_000, what: 'dependency_up{dependency="redis"} 1 with Redis up' },
    );

    await proxy.pause();
    await waitFor(async () => (await scrapeMetric(webhooks.opsUrl, REDIS_UP)) === 0, {
      timeoutMs: 10_000,
      what: 'dependency_up{dependency="redis"} 0 with Redis unreachable',
    });
    expect(await redisSeries()).toEqual(['dependency_up{dependency="redis"} 0']);

    await proxy.resume();
    await waitFor(async () => (await scrapeMetric(webhooks.opsUrl, REDIS_UP)) === 1, {
      timeoutMs: 10_000,
      what: 'dependency_up{dependency="redis"} 1 once Redis is back',
    });
  });
});
