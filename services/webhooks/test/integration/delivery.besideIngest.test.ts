// A delivery's outcome is recorded while an ingest of the same receiver is still open. The
// consumer's transaction inserts deliveries, and their foreign key holds FOR KEY SHARE on
// the receiver's row until the chunk commits; recording an attempt locks that row too (the
// one lock order of its writes), and must take a lock that does not wait for key-share
// holders. With FOR UPDATE every attempt waited out the ingest in flight, and deliveries
// slowed to half while events were arriving (BENCHMARKS.md, "S6: where the queue was").
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { deliveriesOf, newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'beside-ingest' });
});
afterAll(() => h?.close());

it('records a success while another transaction holds the receiver key-share locked', async () => {
  const brand = newBrandId();
  const r = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  const ingest = await h.db.pool.connect();
  try {
    // what a consumer chunk holds from its first delivery insert until it commits
    await ingest.query('begin');
    await ingest.query('select 1 from webhooks.receivers where id = $1 for key share', [
      r.receiver.id,
    ]);
    const event = makeBusinessEvent({ brandId: brand, type: 'payout.paid' });
    await h.producer.publish([event]);
    const [d] = await waitFor(
      async () => {
        const list = await deliveriesOf(h, r.receiver.id);
        return list[0]?.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED ? list : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(d).toMatchObject({ event_id: event.id, attempt_count: 1 });
    expect(d!.last_status).toBeGreaterThanOrEqual(200);
    expect(d!.last_status).toBeLessThan(300);
    expect(r.server.received).toHaveLength(1);
  } finally {
    await ingest.query('rollback');
    ingest.release();
  }
});
