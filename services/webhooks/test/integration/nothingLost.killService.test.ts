// Nothing is lost when the webhooks service is killed: SIGKILL the webhooks service in the middle
// of a burst of 1,000 events, restart it, and every event reaches every receiver; duplicates, if
// any, carry an event id the receiver already had. Offsets are committed only after the events and
// their deliveries are stored, and an expired lease makes a killed worker's deliveries claimable
// again, so nothing is lost.
import { createWebhooksClient } from '@brand/testkit';
import { BURST, burstEvents, expectEveryEventOnce, processedCount, publishInSlices } from './burst';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

let h: Harness;
const brand = newBrandId();
let a: RegisteredReceiver;
let b: RegisteredReceiver;

beforeAll(async () => {
  h = await startHarness({
    label: 'kill',
    env: { DELIVERY_LEASE_MS: '4000', DELIVERY_TIMEOUT_MS: '3000' },
  });
  a = await h.addReceiver({ brandId: brand, events: ['submission.approved'] });
  b = await h.addReceiver({ brandId: brand, events: ['submission.approved', 'payout.paid'] });
});
afterAll(() => h?.close());

it('SIGKILL mid-burst, restart: every event reaches every receiver', async () => {
  const events = burstEvents(brand);
  const publishing = publishInSlices(h, events);
  await a.server.waitFor(() => processedCount(a) + processedCount(b) >= 150, 60_000);
  await h.webhooks.kill();
  const atKill = processedCount(a) + processedCount(b);
  expect(atKill).toBeLessThan(2 * BURST); // it really died mid-burst
  await publishing;

  await h.restart();
  h.client.close();
  h.client = createWebhooksClient(h.webhooks.address);
  await a.server.waitFor(() => processedCount(a) === BURST, 120_000);
  await b.server.waitFor(() => processedCount(b) === BURST, 120_000);
  expectEveryEventOnce(a, events);
  expectEveryEventOnce(b, events);

  const { rows } = await h.db.pool.query<{ status: string; n: number }>(
    `select status, count(*)::int as n from webhooks.deliveries group by status`,
  );
  expect(rows).toEqual([{ status: 'succeeded', n: 2 * BURST }]);
}, 240_000);
