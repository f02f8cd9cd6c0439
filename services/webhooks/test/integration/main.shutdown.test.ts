// SIGTERM stops the webhooks service cleanly (exit 0) even while an attempt hangs on a slow
// receiver: the worker waits half the grace period, then leaves the attempt to its lease
// (not recorded as the receiver's failure).
import { makeBusinessEvent } from '@brand/testkit';
import { newBrandId, startHarness, type Harness } from './harness';

let h: Harness;
const brand = newBrandId();

beforeAll(async () => {
  h = await startHarness({
    label: 'shutdown',
    env: { SHUTDOWN_GRACE_MS: '4000', DELIVERY_TIMEOUT_MS: '20000', DELIVERY_LEASE_MS: '30000' },
  });
});
afterAll(() => h?.close());

it('exits 0 on SIGTERM with an attempt hanging, within the grace period', async () => {
  const r = await h.addReceiver({
    brandId: brand,
    events: ['payout.paid'],
    respondWith: () => 'hang',
  });
  await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
  await r.server.waitFor((rx) => rx.length === 1, 30_000);
  const started = Date.now();
  expect(await h.webhooks.stop('SIGTERM', 10_000)).toBe(0);
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(h.webhooks.logs().join('\n')).toMatch(/their leases expire and they are retried/);
  // the attempt cut short by the shutdown is not held against the receiver: still pending
  const { rows } = await h.db.pool.query<{ status: string; attempts: number }>(
    `select status, attempts from webhooks.deliveries`,
  );
  expect(rows).toEqual([{ status: 'pending', attempts: 0 }]);
  const { rows: receivers } = await h.db.pool.query<{ failure_count: number }>(
    `select failure_count from webhooks.receivers`,
  );
  expect(receivers).toEqual([{ failure_count: 0 }]);
});
