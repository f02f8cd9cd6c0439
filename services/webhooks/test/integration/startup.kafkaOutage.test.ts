// A webhooks worker (roles consumer,worker, as the chart runs it) started while no broker
// answers listens at once: its /healthz answers and its /readyz says Kafka is unreachable. It
// used to wait out kafkajs's connection retries (the topic's admin client, then the consumer)
// before it listened at all, a startup that came near the chart's 60 s startup-probe budget, past
// which the pod is killed and restarted in a loop for as long as the outage lasts. Once the
// broker answers, the consumer joins and stores what was published. The broker "goes down" as a
// TCP proxy in front of the shared test broker that refuses connections.
import {
  createEventProducer,
  createTestDatabase,
  createTopic,
  makeBusinessEvent,
  startWebhooks,
  tcpProxy,
  testKafkaBrokers,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type EventProducer,
  type TcpProxy,
  type TestDatabase,
  type WebhooksProcess,
} from '@brand/testkit';

let db: TestDatabase;
let proxy: TcpProxy;
let webhooks: WebhooksProcess | undefined;
let producer: EventProducer | undefined;
const topic = uniqueTopic('startup-outage');

beforeAll(async () => {
  db = await createTestDatabase();
  await createTopic(topic, 3);
  const [host, port] = testKafkaBrokers()[0]!.split(':');
  proxy = await tcpProxy({ host: host!, port: Number(port) });
}, 60_000);
afterAll(async () => {
  await producer?.close();
  await webhooks?.stop();
  await proxy?.close();
  await db?.close();
}, 60_000);

const readyz = async () => {
  const res = await fetch(`${webhooks!.opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks?: Record<string, string> } };
};

it('listens at once while no broker answers, and consumes once one does', async () => {
  await proxy.pause();
  const startedAt = Date.now();
  webhooks = await startWebhooks({
    databaseUrl: db.url,
    topic,
    groupId: uniqueConsumerGroup('startup-outage'),
    brokers: [`127.0.0.1:${proxy.port}`],
    env: { WEBHOOKS_ROLES: 'consumer,worker', KAFKA_PROBE_INTERVAL_MS: '200' },
  });
  const health = await fetch(`${webhooks.opsUrl}/healthz`);
  const listenedAfterMs = Date.now() - startedAt;
  // A process start is 1-3 s here; kafkajs's retries alone took more than 10.
  expect({ status: health.status, within10s: listenedAfterMs < 10_000 }).toEqual({
    status: 200,
    within10s: true,
  });
  await waitFor(async () => (await readyz()).body.checks?.kafka === 'unreachable', {
    timeoutMs: 10_000,
    what: '/readyz to say Kafka is unreachable',
  });
  expect((await readyz()).status).toBe(503);

  await proxy.resume();
  await waitFor(async () => (await readyz()).status === 200, {
    timeoutMs: 60_000,
    what: '/readyz to say ready once the broker answers',
  });
  producer = await createEventProducer(topic);
  const event = makeBusinessEvent({ brandId: 'br_startupoutage1', type: 'payout.paid' });
  await producer.publish([event]);
  await waitFor(
    async () =>
      (await db.pool.query('select 1 from webhooks.events where id = $1', [event.id])).rowCount ===
      1,
    { timeoutMs: 30_000, what: 'the event published after the outage to be stored' },
  );
}, 180_000);
