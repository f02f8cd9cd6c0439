// A receiver that hangs (or answers slowly) holds at most its share of a worker's slots; deliveries
// to other receivers keep flowing.
import { makeBusinessEvent } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;
const brand = newBrandId();

beforeAll(async () => {
  h = await startHarness({
    label: 'fair',
    env: {
      DELIVERY_CONCURRENCY: '5',
      DELIVERY_PER_RECEIVER_CONCURRENCY: '2',
      DELIVERY_TIMEOUT_MS: '8000',
      DELIVERY_LEASE_MS: '12000',
    },
  });
});
afterAll(() => h?.close());

it('a hanging receiver does not stall deliveries to the others', async () => {
  const hanging = await h.addReceiver({
    brandId: brand,
    events: ['payout.paid'],
    respondWith: () => 'hang',
  });
  const slow = await h.addReceiver({
    brandId: brand,
    events: ['payout.paid'],
    respondWith: () => ({ status: 200, delayMs: 2_000 }),
  });
  const healthy = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  const events = Array.from({ length: 30 }, () =>
    makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
  );
  const started = Date.now();
  await h.producer.publish(events);

  await healthy.server.waitFor((r) => r.length >= 30, 20_000);
  const elapsed = Date.now() - started;
  // every event reached the healthy receiver while the hanging one was still hanging on
  // its first attempts (8 s timeout): it and the slow one never held more than 2 slots each
  expect(elapsed).toBeLessThan(8_000);
  expect(new Set(healthy.server.received.map((d) => d.event?.id))).toEqual(
    new Set(events.map((e) => e.id)),
  );
  expect(hanging.server.received.length).toBeLessThanOrEqual(2);
  expect(slow.server.received.length).toBeGreaterThanOrEqual(1);
});
