// Fair delivery for a receiver that is slow but answers: three other brands' receivers hang (real
// HTTPS sockets that never answer) with more attempts than the slow lane holds, and brand B's
// receiver, which answers 200 after 700 ms (so "slow"), still gets each event within moments.
// Before, every receiver known slow drew on one slow-lane budget and a freed place went to the
// oldest due delivery, the hanging receivers' backlog: B waited a whole attempt timeout (15 s
// here) or two per event (a hostile review's probe, 2026-11-30). Now attempts that wait past the
// hang threshold hold the hanging lane's places, not the slow lane's (deliveryLanes.ts).
import { makeBusinessEvent, scrapeMetric } from '@brand/testkit';
import { newBrandId, startHarness, type Harness, type RegisteredReceiver } from './harness';

const SETTINGS = {
  DELIVERY_CONCURRENCY: '3',
  DELIVERY_SLOW_LANE_CONCURRENCY: '4',
  DELIVERY_PER_RECEIVER_CONCURRENCY: '2',
  DELIVERY_SLOW_AFTER_MS: '300',
  DELIVERY_TIMEOUT_MS: '15000',
  DELIVERY_LEASE_MS: '30000',
};
const TIMEOUT_MS = Number(SETTINGS.DELIVERY_TIMEOUT_MS);
const HANGING_BRANDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'fairslow', env: SETTINGS });
});
afterAll(() => h?.close());

const inFlight = (lane: string) =>
  scrapeMetric(
    h.webhooks.opsUrl,
    new RegExp(`^webhook_worker_attempts_in_flight\\{lane="${lane}"\\} `),
  );

/** Publishes one event of B's at a time: ms from publishing to B's receiver getting it. */
async function latencies(b: RegisteredReceiver, brandId: string, n: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const event = makeBusinessEvent({ brandId, type: 'payout.paid' });
    const sent = Date.now();
    await h.producer.publish([event]);
    // long enough to see the figure before the fix (one or two timeouts), not only a failure
    await b.server.waitFor((got) => got.some((d) => d.event?.id === event.id), 3 * TIMEOUT_MS);
    ms.push(Date.now() - sent);
  }
  return ms;
}

it("a slow receiver's events arrive within moments while three other brands' receivers hang", async () => {
  const bBrand = newBrandId();
  const b = await h.addReceiver({
    brandId: bBrand,
    events: ['payout.paid'],
    respondWith: () => ({ status: 200, delayMs: 700 }),
  });
  const hanging: RegisteredReceiver[] = [];
  const brands = Array.from({ length: HANGING_BRANDS }, newBrandId);
  for (const brandId of brands) {
    hanging.push(
      await h.addReceiver({ brandId, events: ['payout.paid'], respondWith: () => 'hang' }),
    );
  }

  // B alone: the worker learns it is slow (700 ms > 300 ms)
  const alone = await latencies(b, bBrand, 3);

  // 6 events per hanging brand: 18 attempts wanted, 3 x 2 in flight at once, the lane holds 4
  await h.producer.publish(
    brands.flatMap((brandId) =>
      Array.from({ length: 6 }, () => makeBusinessEvent({ brandId, type: 'payout.paid' })),
    ),
  );
  const hangingRequests = () => hanging.reduce((n, r) => n + r.server.received.length, 0);
  // the hanging attempts fill the slow lane's 4 places (3 probes, then one more)
  const lane = Number(SETTINGS.DELIVERY_SLOW_LANE_CONCURRENCY);
  const deadline = Date.now() + 10_000;
  while (hangingRequests() < lane && Date.now() < deadline) await sleep(50);
  expect(hangingRequests()).toBeGreaterThanOrEqual(lane);
  const filledAt = Date.now();

  const beside = await latencies(b, bBrand, 4);
  process.stdout.write(
    `fairness.slowBesideHanging: B alone ${alone.join('/')} ms; beside the hanging ${beside.join('/')} ms\n`,
  );
  // well under one attempt timeout (15 s): B's own 700 ms answers and a claim or two
  expect(Math.max(...beside)).toBeLessThan(3_000);
  // all the while the hanging receivers hung on their first attempts (none timed out yet) ...
  expect(Date.now() - filledAt).toBeLessThan(TIMEOUT_MS);
  for (const r of hanging) expect(r.server.received.length).toBeLessThanOrEqual(2);
  expect(b.server.received.length).toBe(alone.length + beside.length);
  // ... and their attempts wait in the hanging lane, apart from B's
  expect(await inFlight('hanging')).toBeGreaterThanOrEqual(lane);
  expect(await inFlight('shared')).toBe(0);
}, 180_000);
