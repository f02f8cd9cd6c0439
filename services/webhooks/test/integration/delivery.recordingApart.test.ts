// An attempt frees its lane place when the receiver answers, not when its outcome is
// committed (worker.ts): sending goes on while the database records, and what may pile up
// meanwhile is bounded by DELIVERY_UNRECORDED_MAX. Here the recording is held by a lock on
// the receiver's row (every outcome's write takes it first, attemptRepo.ts): the receiver
// still gets more deliveries than its per-receiver bound (4), exactly as many as the bound
// on unrecorded answers (6) and no more, each once; released, every one is recorded as
// delivered with one attempt, and the rest follow. /metrics shows the answers waiting.
import { makeBusinessEvent, scrapeMetric, waitFor } from '@brand/testkit';
import { deliveryRows, newBrandId, startHarness, type Harness } from './harness';

const UNRECORDED_MAX = 6;
const EVENTS = 12;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    label: 'recording-apart',
    // a lease long enough that recording is not given up on (half the lease) while it is held
    env: { DELIVERY_UNRECORDED_MAX: String(UNRECORDED_MAX), DELIVERY_LEASE_MS: '60000' },
  });
});
afterAll(() => h?.close());

it('sends while outcomes are being recorded, up to DELIVERY_UNRECORDED_MAX, and loses none', async () => {
  const brand = newBrandId();
  const r = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  // a first delivery answered and recorded: the receiver is known to answer promptly, so its
  // attempts are no longer probed one at a time (deliveryLanes.ts)
  await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
  await waitFor(async () => {
    const rows = await deliveryRows(h, r.receiver.id);
    return rows.length === 1 && rows[0]!.status === 'succeeded' ? rows : undefined;
  });

  const hold = await h.db.pool.connect();
  try {
    await hold.query('begin');
    await hold.query('select 1 from webhooks.receivers where id = $1 for no key update', [
      r.receiver.id,
    ]);
    const events = Array.from({ length: EVENTS }, () =>
      makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
    );
    await h.producer.publish(events);
    await r.server.waitFor((received) => received.length >= 1 + UNRECORDED_MAX, 20_000);
    // the bound holds: nothing more is claimed while these answers wait to be written
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(r.server.received).toHaveLength(1 + UNRECORDED_MAX);
    const rows = await deliveryRows(h, r.receiver.id);
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(1);
    // what an operator sees: the answers waiting for the database, at the bound
    expect(await scrapeMetric(h.webhooks.opsUrl, /^webhook_worker_unrecorded_attempts /)).toBe(
      UNRECORDED_MAX,
    );
    await hold.query('rollback');
  } finally {
    hold.release();
  }

  const rows = await waitFor(
    async () => {
      const all = await deliveryRows(h, r.receiver.id);
      return all.length === 1 + EVENTS && all.every((d) => d.status === 'succeeded')
        ? all
        : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  expect(rows.map((d) => d.attempts)).toEqual(rows.map(() => 1));
  // each event reached the receiver once: no answer was lost and sent again
  const ids = r.server.received.map((d) => d.event?.id);
  expect(new Set(ids).size).toBe(1 + EVENTS);
  expect(ids).toHaveLength(1 + EVENTS);
});
