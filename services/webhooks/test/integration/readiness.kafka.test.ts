// The webhooks service's readiness says when no broker is reachable (a broker that went away once
// left it logging ECONNREFUSED while its readiness said ready): /readyz answers 503 with kafka
// "unreachable" and webhook_kafka_reachable is 0 while no broker accepts connections (this test's
// own broker, stopped), and both recover when the broker is back. Topics created the moment
// that broker is back can be written at once (testkit's createTopic, the webhooks consumer's
// ensureTopic: createTopicWithLeaders waits through the broker's "does not host this
// topic-partition" answers, which failed a CI run's first test file once).
import { Kafka, logLevel } from 'kafkajs';
import {
  createTopic,
  scrapeMetric,
  startOwnKafka,
  uniqueTopic,
  waitFor,
  type OwnKafka,
} from '@brand/testkit';
import { startHarness, type Harness } from './harness';

let kafka: OwnKafka;
let h: Harness;

beforeAll(async () => {
  kafka = await startOwnKafka();
  h = await startHarness({
    label: 'readiness',
    brokers: kafka.brokers,
    env: { KAFKA_PROBE_INTERVAL_MS: '200' },
  });
}, 240_000);
afterAll(async () => {
  await h?.close();
  await kafka?.remove();
}, 60_000);

const readyz = async (): Promise<{ status: number; body: unknown }> => {
  const res = await fetch(`${h.webhooks.opsUrl}/readyz`);
  return { status: res.status, body: await res.json() };
};
const reachable = () => scrapeMetric(h.webhooks.opsUrl, /^webhook_kafka_reachable /);

it('says Kafka is unreachable while the broker is gone, and ready again once it is back', async () => {
  await waitFor(async () => (await readyz()).status === 200, { timeoutMs: 10_000 });
  expect((await readyz()).body).toEqual({
    status: 'ready',
    checks: { database: 'ok', kafka: 'ok', redis: 'ok' },
  });
  expect(await reachable()).toBe(1);

  await kafka.stop();
  await waitFor(async () => (await readyz()).status === 503, {
    timeoutMs: 10_000,
    what: '/readyz to say not ready',
  });
  expect((await readyz()).body).toEqual({
    status: 'not_ready',
    checks: { database: 'ok', kafka: 'unreachable', redis: 'ok' },
  });
  expect(await reachable()).toBe(0);
  expect(h.webhooks.logs().join('\n')).toContain('Kafka unreachable');

  await kafka.start();
  await waitFor(async () => (await readyz()).status === 200, {
    timeoutMs: 30_000,
    what: '/readyz to say ready again',
  });
  expect(await reachable()).toBe(1);
  expect(h.webhooks.logs().join('\n')).toContain('Kafka reachable again');
}, 180_000);

it('has topics created the moment the broker is back writable at once, every partition', async () => {
  // The test above has just restarted the broker.
  const topics = Array.from({ length: 8 }, () => uniqueTopic('fresh'));
  for (const topic of topics) await createTopic(topic, 3, kafka.brokers);

  // No retries: a partition without its leader yet would fail the send.
  const producer = new Kafka({
    clientId: 'readiness-fresh-topics',
    brokers: kafka.brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).producer();
  await producer.connect();
  try {
    for (const topic of topics)
      for (const partition of [0, 1, 2]) {
        const [sent] = await producer.send({
          topic,
          acks: -1,
          messages: [{ partition, value: 'x' }],
        });
        expect(sent).toMatchObject({ topicName: topic, partition, errorCode: 0 });
      }
  } finally {
    await producer.disconnect();
  }
}, 180_000);
