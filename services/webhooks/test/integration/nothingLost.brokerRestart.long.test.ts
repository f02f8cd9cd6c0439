// Nothing is lost when the broker restarts: the Kafka broker restarted in the middle of a burst of
// 1,000 events (this test's own broker, never the shared one): the consumer reconnects, resumes
// from its last committed offset, and every event reaches the receiver once.
import { startOwnKafka, waitFor, type OwnKafka } from '@brand/testkit';
import { BURST, burstEvents, expectEveryEventOnce, processedCount, publishInSlices } from './burst';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

let kafka: OwnKafka;
let h: Harness;
const brand = newBrandId();
let r: RegisteredReceiver;

beforeAll(async () => {
  kafka = await startOwnKafka();
  h = await startHarness({ label: 'broker', brokers: kafka.brokers });
  r = await h.addReceiver({ brandId: brand, events: ['submission.approved'] });
}, 240_000);
afterAll(async () => {
  await h?.close();
  await kafka?.remove();
}, 60_000);

it('broker restarted mid-burst: every event reaches the receiver', async () => {
  const events = burstEvents(brand);
  // the producer keeps publishing through the outage (kafkajs retries its sends)
  const progress = { published: 0 };
  const publishing = publishInSlices(h, events, 200, progress);
  // stop the broker once a third of the burst is out and deliveries are flowing
  await waitFor(() => progress.published >= 350 && processedCount(r) > 0, { timeoutMs: 60_000 });
  const publishedAtStop = progress.published;
  await kafka.stop();
  expect(publishedAtStop).toBeLessThan(BURST); // mid-burst: still publishing
  expect(processedCount(r)).toBeLessThan(BURST);
  await kafka.start();
  await publishing;
  await r.server.waitFor(() => processedCount(r) === BURST, 180_000);
  expectEveryEventOnce(r, events);
  const { rows } = await h.db.pool.query<{ n: number }>(
    `select count(*)::int as n from webhooks.events`,
  );
  expect(rows[0]!.n).toBe(BURST);
}, 300_000);
