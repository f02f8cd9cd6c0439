// Successes are written a batch at a time (successBatcher.ts): one statement carries the
// attempts of many deliveries to several receivers. Whatever the batches were, every
// attempt and its detail are stored once, each delivery is succeeded, each receiver's health
// counts every attempt once in its bucket and latency histogram, and its failure streak is
// cleared with its last status set.
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { deliveryRows, newBrandId, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'success-batch' });
});
afterAll(() => h?.close());

const EVENTS = 40;

it('stores every attempt once and counts each receiver exactly, in batches', async () => {
  const brand = newBrandId();
  const receivers = [];
  for (let i = 0; i < 3; i++)
    receivers.push(await h.addReceiver({ brandId: brand, events: ['payout.paid'] }));
  const ids = receivers.map((r) => r.receiver.id);
  // a failure streak that the first success must clear
  await h.db.pool.query(
    `update webhooks.receivers set failure_count = 3, failing_since = now() - interval '1 hour',
       last_error = 'connection refused' where id = $1`,
    [ids[0]],
  );
  const events = Array.from({ length: EVENTS }, () =>
    makeBusinessEvent({ brandId: brand, type: 'payout.paid' }),
  );
  await h.producer.publish(events);
  for (const id of ids)
    await waitFor(
      async () => {
        const rows = await deliveryRows(h, id);
        return rows.length === EVENTS && rows.every((r) => r.status === 'succeeded')
          ? rows
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

  const stored = await h.db.pool.query<{ receiver_id: string; attempts: number; details: number }>(
    `select d.receiver_id, count(a.*)::int as attempts, count(x.*)::int as details
       from webhooks.deliveries d
       join webhooks.attempts a on a.delivery_id = d.id
       left join webhooks.attempt_details x on x.delivery_id = a.delivery_id and x.number = a.number
      where d.receiver_id = any($1) group by d.receiver_id order by d.receiver_id`,
    [ids],
  );
  expect(stored.rows).toEqual(
    [...ids].sort().map((receiver_id) => ({ receiver_id, attempts: EVENTS, details: EVENTS })),
  );

  const health = await h.db.pool.query<{
    receiver_id: string;
    attempts: number;
    succeeded: number;
    timed: number;
  }>(
    `select receiver_id, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded,
            sum((select sum(n) from unnest(latency) n))::int as timed
       from webhooks.receiver_health where receiver_id = any($1)
      group by receiver_id order by receiver_id`,
    [ids],
  );
  expect(health.rows).toEqual(
    [...ids].sort().map((receiver_id) => ({
      receiver_id,
      attempts: EVENTS,
      succeeded: EVENTS,
      timed: EVENTS,
    })),
  );

  const state = await h.db.pool.query<{
    last_status: number;
    failure_count: number;
    failing_since: Date | null;
    last_error: string | null;
    delivered: boolean;
  }>(
    `select last_status, failure_count, failing_since, last_error,
            last_delivery_at is not null as delivered
       from webhooks.receivers where id = any($1)`,
    [ids],
  );
  for (const r of state.rows) {
    expect(r.last_status).toBeGreaterThanOrEqual(200);
    expect(r.last_status).toBeLessThan(300);
    expect(r).toMatchObject({
      failure_count: 0,
      failing_since: null,
      last_error: null,
      delivered: true,
    });
  }
});
