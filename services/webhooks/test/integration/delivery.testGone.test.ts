// A Test is attempted once and never counts as a failure, a 410 included: a real HTTPS receiver
// that answers 410 to a Test keeps its receiver enabled and its real deliveries waiting, with the
// production retry schedule (a 503 waits at least 60 s, far beyond the test).
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import { deliveriesOf, newBrandId, receiverState, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'testgone', env: { RETRY_TIME_SCALE: '1' } });
});
afterAll(async () => {
  await h?.close();
});

const PAID = 'payout.paid' as const;

it('a 410 answered to a Test is the test result only: the receiver stays enabled, its pending delivery stays pending', async () => {
  const brand = newBrandId();
  // real deliveries: 503 (retried in a minute or more); a Test: 410 Gone
  const r = await h.addReceiver({
    brandId: brand,
    events: [PAID],
    respondWith: (_n, d) => (d.verdict.ok && d.verdict.event.test ? 410 : 503),
  });
  const real = makeBusinessEvent({ brandId: brand, type: PAID });
  await h.producer.publish([real]);
  await waitFor(
    async () => {
      const d = (await deliveriesOf(h, r.receiver.id)).find((x) => x.event_id === real.id);
      return (d?.attempt_count === 1 && d.next_attempt_at !== '') || undefined;
    },
    { timeoutMs: 20_000 },
  );

  const { delivery: queued } = await h.client.call('testReceiver', {
    receiver_id: r.receiver.id,
    event_type: 0,
    with_new_secret: false,
  });
  await waitFor(
    async () => {
      const t = (await deliveriesOf(h, r.receiver.id)).find((x) => x.id === queued!.id);
      return t?.status === DeliveryStatus.DELIVERY_STATUS_FAILED || undefined;
    },
    { timeoutMs: 20_000 },
  );
  expect(r.server.received.filter((x) => x.event?.test).map((x) => x.status)).toEqual([410]);

  const list = await deliveriesOf(h, r.receiver.id);
  // the Test's result is its own: failed, one attempt, 410
  expect(list.find((x) => x.id === queued!.id)).toMatchObject({
    test: true,
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
    last_status: 410,
  });
  // the real delivery still waits for its retry, untouched
  expect(list.find((x) => x.event_id === real.id)).toMatchObject({
    test: false,
    status: DeliveryStatus.DELIVERY_STATUS_PENDING,
    attempt_count: 1,
    last_error: '503 from the receiver',
  });
  // the receiver is still enabled, with its run of failures as the real attempt left it
  expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({
    enabled: true,
    disabled_reason: '',
    disabled_by_service: false,
    failure_count: 1,
    waiting: 1,
  });
  const { rows: disabled } = await h.db.pool.query(
    `select 1 from webhooks.receiver_notices where receiver_id = $1 and kind = 'disabled'
     union all
     select 1 from webhooks.activity where brand_id = $2 and action = 'receiver.disabled'`,
    [r.receiver.id, brand],
  );
  expect(disabled).toEqual([]);

  // and the next event is still queued and sent to it
  const later = makeBusinessEvent({ brandId: brand, type: PAID });
  await h.producer.publish([later]);
  await r.server.waitFor((rx) => rx.some((x) => x.event?.id === later.id), 20_000);
});
