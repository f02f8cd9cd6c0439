// A receiver whose owner stops selecting an event type is never sent that type again, and never
// charged for it: the update fails its deliveries of the dropped type still waiting, in the same
// transaction, with the reason in words (not a failure of the receiver's); a resend of one is
// refused; Recover since leaves them out. Real HTTPS receivers that accept only the types they
// are configured with (as the contract asks), with the production retry schedule (a 503 waits at
// least 60 s, far beyond each test).
import { randomUUID } from 'node:crypto';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import {
  deliveriesOf,
  newBrandId,
  receiverState,
  setEnabled,
  startHarness,
  type Harness,
} from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'narrowed', env: { RETRY_TIME_SCALE: '1' } });
});
afterAll(async () => {
  await h?.close();
});

const PAID = 'payout.paid' as const;
const APPROVED = 'submission.approved' as const;
const NOT_SELECTED = 'event type no longer selected by the receiver';

/** Changes the receiver's selection as an owner would. */
const selectOnly = (receiverId: string, events: EventTypeName[]) =>
  h.client.call('updateReceiver', {
    receiver_id: receiverId,
    events: events.map((e) => EVENT_TYPES.toProto(e)),
  });

/**
 * A receiver of both types whose accepted types follow its selection (`accepted`), down (503)
 * while `down.now`, with one event of each type attempted once and waiting for its retry.
 */
async function receiverWithBacklog() {
  const brand = newBrandId();
  const down = { now: true };
  const accepted = new Set<EventTypeName>([PAID, APPROVED]);
  const r = await h.addReceiver({
    brandId: brand,
    events: [PAID, APPROVED],
    // the receiver accepts only the types it is configured with: 422 for the others
    respondWith: (_n, d) =>
      down.now ? 503 : d.verdict.ok && !accepted.has(d.verdict.event.type) ? 422 : undefined,
  });
  const paid = makeBusinessEvent({ brandId: brand, type: PAID });
  const approved = makeBusinessEvent({ brandId: brand, type: APPROVED });
  await h.producer.publish([paid, approved]);
  const list = await waitFor(
    async () => {
      const all = await deliveriesOf(h, r.receiver.id);
      return all.length === 2 && all.every((d) => d.attempt_count === 1 && d.next_attempt_at)
        ? all
        : undefined;
    },
    { timeoutMs: 20_000 },
  );
  const of = (eventId: string) => list.find((d) => d.event_id === eventId)!;
  return { brand, r, down, accepted, paid: of(paid.id), approved: of(approved.id) };
}

const deliveryOf = async (receiverId: string, id: string) =>
  (await deliveriesOf(h, receiverId)).find((d) => d.id === id)!;

it('narrowing the events fails the waiting deliveries of the dropped type, which are never attempted again', async () => {
  const { brand, r, down, accepted, paid, approved } = await receiverWithBacklog();
  expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({ failure_count: 2 });

  await selectOnly(r.receiver.id, [PAID]);
  accepted.delete(APPROVED);

  // failed at once, by the update, with the reason in words; the other type still waits
  expect(await deliveryOf(r.receiver.id, approved.id)).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
    last_error: NOT_SELECTED,
    next_attempt_at: '',
  });
  expect(await deliveryOf(r.receiver.id, paid.id)).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_PENDING,
    attempt_count: 1,
  });
  // not a failure of the receiver's: its run is as the two attempts left it, one waits
  expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({
    enabled: true,
    failure_count: 2,
    waiting: 1,
  });

  // back up: its first 2xx (a Test) makes what waits due now (catch-up); only the payout goes
  down.now = false;
  await h.client.call('testReceiver', {
    receiver_id: r.receiver.id,
    event_type: 0,
    with_new_secret: false,
  });
  await waitFor(
    async () =>
      (await deliveryOf(r.receiver.id, paid.id)).status ===
        DeliveryStatus.DELIVERY_STATUS_SUCCEEDED || undefined,
    { timeoutMs: 20_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const sentApproved = r.server.received.filter((x) => x.event?.type === APPROVED);
  expect(sentApproved.map((x) => x.status)).toEqual([503]);
  expect(r.server.received.filter((x) => x.status === 422)).toEqual([]);
  expect(await deliveryOf(r.receiver.id, approved.id)).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
  });
  expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({ failure_count: 0 });
});

it('refuses to resend a delivery of a type the receiver no longer selects', async () => {
  const { r, down, accepted, paid, approved } = await receiverWithBacklog();
  // both fail (an owner's disable and enable), then the owner stops selecting submissions
  await setEnabled(h, r.receiver.id, false);
  await setEnabled(h, r.receiver.id, true);
  await selectOnly(r.receiver.id, [PAID]);
  accepted.delete(APPROVED);
  down.now = false;

  await expect(h.client.call('resendDelivery', { delivery_id: approved.id })).rejects.toMatchObject(
    {
      code: 'precondition_failed',
      message: expect.stringContaining(`no longer selects ${APPROVED}`) as string,
    },
  );
  expect(await deliveryOf(r.receiver.id, approved.id)).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
  });
  // a selected type is resent as before
  await h.client.call('resendDelivery', { delivery_id: paid.id });
  await r.server.waitFor((rx) => rx.some((x) => x.outcome === 'processed'), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(r.server.received.filter((x) => x.event?.type === APPROVED)).toHaveLength(1);
});

it('Recover since leaves out the deliveries of a type the receiver no longer selects', async () => {
  const since = new Date(Date.now() - 60_000).toISOString();
  const { r, down, accepted, paid, approved } = await receiverWithBacklog();
  // both fail (an owner's disable and enable), then the owner stops selecting submissions
  await setEnabled(h, r.receiver.id, false);
  await setEnabled(h, r.receiver.id, true);
  await selectOnly(r.receiver.id, [PAID]);
  accepted.delete(APPROVED);
  down.now = false;

  expect(
    await h.client.call('previewRecovery', { receiver_id: r.receiver.id, since }),
  ).toMatchObject({ failed: 1, waiting: 0, would_requeue: 1 });
  expect(
    await h.client.call('recoverDeliveries', {
      receiver_id: r.receiver.id,
      since,
      request_id: randomUUID(),
      actor_email: '',
    }),
  ).toEqual({ requeued: 1, requeued_failed: 1, made_due: 0, remaining: 0, replayed: false });
  await waitFor(
    async () =>
      (await deliveryOf(r.receiver.id, paid.id)).status ===
        DeliveryStatus.DELIVERY_STATUS_SUCCEEDED || undefined,
    { timeoutMs: 20_000 },
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await deliveryOf(r.receiver.id, approved.id)).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
  });
  expect(r.server.received.filter((x) => x.event?.type === APPROVED)).toHaveLength(1);
});

it('a delivery of a type no longer selected that an ingest stored anyway is failed at its first answer, never counted', async () => {
  // The consumer reads a brand's receivers and their selection when it stores an event, and
  // inserts their deliveries later in the same transaction: a narrowing committed in between
  // fails the deliveries it sees, not that one. The row is made here as that race leaves it.
  const brand = newBrandId();
  const r = await h.addReceiver({ brandId: brand, events: [PAID] });
  const event = makeBusinessEvent({ brandId: brand, type: APPROVED });
  const id = `dlv_raced${Date.now()}`;
  await h.db.pool.query(
    `with ev as (
       insert into webhooks.events (id, brand_id, type, created_at, object_json)
       values ($1, $2, $3, now(), $4) returning id, created_at
     )
     insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select $5, ev.id, ev.created_at, $3, $6, $2 from ev`,
    [event.id, brand, APPROVED, event.object_json, id, r.receiver.id],
  );
  const done = await waitFor(
    async () => {
      const d = await deliveryOf(r.receiver.id, id);
      return d?.attempt_count === 1 ? d : undefined;
    },
    { timeoutMs: 20_000 },
  );
  // the receiver refused it (it accepts only payouts); that is the delivery's end, not a retry
  expect(r.server.received.map((x) => x.status)).toEqual([422]);
  expect(done).toMatchObject({
    status: DeliveryStatus.DELIVERY_STATUS_FAILED,
    attempt_count: 1,
    last_status: 422,
    last_error: NOT_SELECTED,
    next_attempt_at: '',
  });
  // and not the receiver's failure
  expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({
    enabled: true,
    failure_count: 0,
    last_error: '',
    failing_since: '',
  });
});
