// docs/contract.md#receiver-state: a receiver without a 2xx for 5 days is disabled. The period is a
// setting (RECEIVER_DISABLE_AFTER_MS); here 1.5 s, with the schedule scaled by 0.001.
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { deliveriesOf, newBrandId, receiverState, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'days', env: { RECEIVER_DISABLE_AFTER_MS: '1500' } });
});
afterAll(() => h?.close());

it('disables a receiver that has had no 2xx for the period, and fails its pending deliveries', async () => {
  const brand = newBrandId();
  const r = await h.addReceiver({
    brandId: brand,
    events: ['payout.paid'],
    respondWith: () => 502,
  });
  await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
  const state = await waitFor(
    async () => {
      const s = await receiverState(h, brand, r.receiver.id);
      return s.enabled ? undefined : s;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  expect(state.disabled_reason).toMatch(/^no 2xx since /);
  expect(state.failure_count).toBeGreaterThanOrEqual(2);
  const [d] = await deliveriesOf(h, r.receiver.id);
  expect(d!.status).toBe(DeliveryStatus.DELIVERY_STATUS_FAILED);
  expect(d!.last_error).toMatch(/receiver disabled/);

  // enabling again clears the reason and the streak
  const enabled = await h.client.call('updateReceiver', {
    receiver_id: r.receiver.id,
    enabled: true,
    events: [],
  });
  expect(enabled.receiver).toMatchObject({ enabled: true, disabled_reason: '', failure_count: 0 });
});
