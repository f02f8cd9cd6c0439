// The webhooks service's readiness says when no broker is reachable (a broker that went away once
// left it logging ECONNREFUSED while its readiness said ready): /readyz answers 503 with kafka
// "unreachable" and webhook_kafka_reachable is 0 while no broker accepts connections (this test's
// own broker, stopped), and both recover when the broker is back.
import { scrapeMetric, startOwnKafka, waitFor, type OwnKafka } from '@brand/testkit';
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
    checks: { database: 'ok', kafka: 'ok' },
  });
  expect(await reachable()).toBe(1);

  await kafka.stop();
  await waitFor(async () => (await readyz()).status === 503, {
    timeoutMs: 10_000,
    what: '/readyz to say not ready',
  });
  expect((await readyz()).body).toEqual({
    status: 'not_ready',
    checks: { database: 'ok', kafka: 'unreachable' },
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
