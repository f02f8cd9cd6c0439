// A worker fed by its consumer scans the table only every DELIVERY_POLL_MS, except while scans find
// deliveries the feed did not hold. A receiver's backlog made due at once (its first 2xx after an
// outage) is drained at every turn, not a few deliveries per poll: with an 8 s poll and 4 attempts
// of a receiver at a time, 24 waiting deliveries paced by the poll would take 48 s; drained at
// every turn they take well under one poll. The poll is long so that a loaded machine's drain
// (3.3 s once in CI, beside two other test workers) stays far from the bound.
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { deliveriesOf, newBrandId, startHarness, type Harness } from './harness';

const POLL_MS = 8_000;
const WAITING = 24;
const PAID = 'payout.paid' as const;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    label: 'feedbacklog',
    // the production retry schedule: a 503 waits a minute, far beyond this test
    env: { RETRY_TIME_SCALE: '1', DELIVERY_POLL_MS: String(POLL_MS) },
  });
});
afterAll(() => h?.close());

it('drains a backlog made due at once within one poll, not one poll at a time', async () => {
  const down = { now: true };
  const brandId = newBrandId();
  const r = await h.addReceiver({
    brandId,
    events: [PAID],
    respondWith: () => (down.now ? 503 : undefined),
  });
  const events = Array.from({ length: WAITING }, () => makeBusinessEvent({ brandId, type: PAID }));
  await h.producer.publish(events);
  await waitFor(
    async () => {
      const waiting = (await deliveriesOf(h, r.receiver.id)).filter(
        (d) => d.attempt_count === 1 && d.next_attempt_at,
      );
      return waiting.length === WAITING || undefined;
    },
    { timeoutMs: 30_000 },
  );

  // back up; a Test is its first 2xx, which makes every waiting delivery due now
  down.now = false;
  await h.client.call('testReceiver', {
    receiver_id: r.receiver.id,
    event_type: 0,
    with_new_secret: false,
  });
  const processed = () =>
    r.server.received.filter((d) => d.outcome === 'processed' && d.event && !d.event.test).length;
  await r.server.waitFor((got) => got.some((d) => d.event?.test === true), 2 * POLL_MS + 5_000);
  const caughtUpFrom = Date.now();
  await r.server.waitFor(() => processed() >= WAITING, 30_000);
  expect(Date.now() - caughtUpFrom).toBeLessThan(POLL_MS);
  expect(
    new Set(r.server.received.filter((d) => !d.event?.test).map((d) => d.event?.id)).size,
  ).toBe(WAITING);
});
