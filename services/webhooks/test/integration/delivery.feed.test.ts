// The feed from the consumer to the worker of its own process (deliveryFeed.ts). What the consumer
// stored is claimed by primary key; what the feed does not hold (over its bound, retries come due,
// what another process stored) is found by the worker's scan of the table. Two processes with every
// role share the topic's partitions and the table, the feed is small enough to overflow, and one
// receiver fails before it answers: every event still reaches each receiver, and each is answered
// 2xx exactly once.
import { makeBusinessEvent, scrapeMetric, type WebhooksProcess } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

const SETTINGS = { DELIVERY_FEED_MAX: '12', DELIVERY_CONCURRENCY: '8' };
const EVENTS = 120;

let h: Harness;
let second: WebhooksProcess;

beforeAll(async () => {
  h = await startHarness({ label: 'feed', env: SETTINGS });
  second = await h.another(SETTINGS);
});
afterAll(() => h?.close());

const claimed = async (way: 'feed' | 'scan') => {
  const pattern = new RegExp(`^webhook_deliveries_claimed_total\\{way="${way}"\\} `);
  const counts = await Promise.all(
    [h.webhooks.opsUrl, second.opsUrl].map((ops) => scrapeMetric(ops, pattern)),
  );
  return counts.reduce((a, b) => a + b, 0);
};

/** How many 2xx each event was answered with. */
const answeredOk = (received: Array<{ event?: { id: string }; status: number | 'hang' }>) => {
  const counts = new Map<string, number>();
  for (const r of received)
    if (r.event && typeof r.status === 'number' && r.status < 300)
      counts.set(r.event.id, (counts.get(r.event.id) ?? 0) + 1);
  return counts;
};

it('delivers every event exactly once through the feed and the scan together', async () => {
  const brand = newBrandId();
  const healthy = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  // its first 20 requests fail: those deliveries come back as retries, found by the scan
  const flaky = await h.addReceiver({
    brandId: brand,
    events: ['payout.paid'],
    respondWith: (n) => (n <= 20 ? 500 : undefined),
  });
  const events = Array.from({ length: EVENTS }, () =>
    makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
  );
  await h.producer.publish(events);

  const ids = events.map((e) => e.id).sort();
  await healthy.server.waitFor((got) => answeredOk(got).size >= EVENTS, 60_000);
  await flaky.server.waitFor((got) => answeredOk(got).size >= EVENTS, 60_000);
  for (const receiver of [healthy, flaky]) {
    const ok = answeredOk(receiver.server.received);
    expect([...ok.keys()].sort()).toEqual(ids);
    expect([...ok.values()].every((n) => n === 1)).toBe(true);
  }
  // the healthy receiver was never sent an event twice
  expect(healthy.server.received).toHaveLength(EVENTS);
  expect(flaky.server.received.filter((r) => r.status === 500)).toHaveLength(20);

  // most were claimed by key; the scan found the retries and what the feed could not hold
  const byFeed = await claimed('feed');
  const byScan = await claimed('scan');
  expect(byFeed).toBeGreaterThan(0);
  expect(byScan).toBeGreaterThanOrEqual(20);
  expect(byFeed + byScan).toBe(2 * EVENTS + 20);
  const rows = await h.db.pool.query<{ status: string; n: number }>(
    `select status, count(*)::int as n from webhooks.deliveries
     where receiver_id = any($1) group by status`,
    [[healthy.receiver.id, flaky.receiver.id]],
  );
  expect(rows.rows).toEqual([{ status: 'succeeded', n: 2 * EVENTS }]);
});

it('without a feed (DELIVERY_FEED_MAX=0) every delivery is found by the scan', async () => {
  const brand = newBrandId();
  const unfed = await h.another({ ...SETTINGS, DELIVERY_FEED_MAX: '0' });
  const receiver = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  // the others stop: the unfed process is the only consumer and worker left
  await h.webhooks.stop();
  await second.stop();
  const events = Array.from({ length: 20 }, () =>
    makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
  );
  await h.producer.publish(events);
  await receiver.server.waitFor((got) => answeredOk(got).size >= 20, 60_000);
  expect(receiver.server.received).toHaveLength(20);
  const pattern = (way: string) =>
    new RegExp(`^webhook_deliveries_claimed_total\\{way="${way}"\\} `);
  expect(await scrapeMetric(unfed.opsUrl, pattern('feed'))).toBe(0);
  expect(await scrapeMetric(unfed.opsUrl, pattern('scan'))).toBe(20);
});
