// Catch-up and failing alerts, with real HTTPS receivers that go down and come back and the
// production retry schedule (a 503 waits at least 60 s, far beyond each test):
//   - a receiver down while 25 changes happen, then up: its first 2xx (a Test) makes every
//     waiting delivery due now and each event arrives exactly once, with no click;
//   - Recover since takes deliveries waiting for a retry as well as failed ones, in one call;
//   - what waits is on the receiver (how many, the oldest);
//   - the owners' notices: one "failing" at the threshold, one "recovered", never per attempt.
import {
  createWebhooksClient,
  makeBusinessEvent,
  TEST_CONSOLE_TOKEN,
  waitFor,
  type WebhooksClient,
} from '@brand/testkit';
import { randomUUID } from 'node:crypto';
import { ReceiverNoticeKind } from '@brand/proto/webhooks/v1';
import { deliveriesOf, newBrandId, startHarness, type Harness } from './harness';

let h: Harness;
let mailer: WebhooksClient;

beforeAll(async () => {
  h = await startHarness({
    label: 'catchup',
    env: { RETRY_TIME_SCALE: '1', RECEIVER_FAILING_ALERT_AFTER_FAILURES: '5' },
  });
  mailer = createWebhooksClient(h.webhooks.address, TEST_CONSOLE_TOKEN);
});
afterAll(async () => {
  mailer?.close();
  await h?.close();
});

const PAID = 'payout.paid' as const;
const receiverOf = async (id: string) =>
  (await h.client.call('getReceiver', { receiver_id: id })).receiver!;

/** A receiver that answers 503 while `down.now` is true. */
async function flakyReceiver() {
  const down = { now: true };
  const r = await h.addReceiver({
    brandId: newBrandId(),
    events: [PAID],
    respondWith: () => (down.now ? 503 : undefined),
  });
  return { r, down };
}

/** Publishes `n` events and waits until each has failed once and waits for its retry. */
async function outage(brandId: string, receiverId: string, n: number): Promise<string[]> {
  const events = Array.from({ length: n }, () => makeBusinessEvent({ brandId, type: PAID }));
  await h.producer.publish(events);
  await waitFor(
    async () => {
      const mine = new Set(events.map((e) => e.id));
      const list = await deliveriesOf(h, receiverId);
      const waiting = list.filter(
        (d) => mine.has(d.event_id) && d.attempt_count === 1 && d.next_attempt_at,
      );
      return waiting.length === n || undefined;
    },
    { timeoutMs: 30_000 },
  );
  return events.map((e) => e.id);
}

/** The event ids the receiver accepted (2xx) that are not Test deliveries. */
const processed = (r: Awaited<ReturnType<typeof flakyReceiver>>['r']) =>
  r.server.received
    .filter((d) => d.outcome === 'processed' && d.event && !d.event.test)
    .map((d) => d.event!.id);

it('catches up by itself when the receiver answers 2xx again: every event once, no click', async () => {
  const { r, down } = await flakyReceiver();
  const ids = await outage(r.receiver.brand_id, r.receiver.id, 25);

  // what waits is shown on the receiver: all 25, the oldest first created
  const during = await receiverOf(r.receiver.id);
  expect(during.waiting).toBe(25);
  expect(Date.parse(during.oldest_waiting_at)).toBeLessThanOrEqual(Date.now());
  expect(during.failure_count).toBe(25);

  // back up; one Test is its first 2xx: the backlog drains with no other action
  down.now = false;
  const started = Date.now();
  await h.client.call('testReceiver', {
    receiver_id: r.receiver.id,
    event_type: 0,
    with_new_secret: false,
  });
  await r.server.waitFor(() => processed(r).length >= 25, 20_000);
  // the retries were a minute or more away: only the catch-up can have sent them this soon
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(processed(r).sort()).toEqual([...ids].sort());
  // exactly once each, nothing more afterwards
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(processed(r)).toHaveLength(25);

  const after = await receiverOf(r.receiver.id);
  expect(after).toMatchObject({ waiting: 0, oldest_waiting_at: '', failure_count: 0 });
  const { rows: caughtUp } = await h.db.pool.query<{ summary: string }>(
    `select summary from webhooks.activity where brand_id = $1 and action = 'deliveries.caught_up'`,
    [r.receiver.brand_id],
  );
  expect(caughtUp).toHaveLength(1);
  expect(caughtUp[0]!.summary).toMatch(/25 waiting deliveries are due now/);
});

it('catches a delivery up once per round: one the receiver refuses by itself keeps to its schedule', async () => {
  // takes payouts, refuses every submission: each payout's 2xx follows a failure
  const brandId = newBrandId();
  const r = await h.addReceiver({
    brandId,
    events: [PAID, 'submission.approved'],
    respondWith: (_n, d) =>
      d.verdict.ok && d.verdict.event.type === 'submission.approved' ? 503 : undefined,
  });
  const refused = makeBusinessEvent({ brandId, type: 'submission.approved' });
  await h.producer.publish([refused]);
  const attemptsOf = async () =>
    (await deliveriesOf(h, r.receiver.id)).find((d) => d.event_id === refused.id)?.attempt_count ??
    0;
  await waitFor(async () => (await attemptsOf()) === 1 || undefined, { timeoutMs: 20_000 });
  // five payouts one after the other, each a 2xx after the submission's failure
  for (let i = 0; i < 5; i++) {
    const paid = makeBusinessEvent({ brandId, type: PAID });
    await h.producer.publish([paid]);
    await r.server.waitFor(() => processed(r).includes(paid.id), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // the first 2xx sent the refused one early once; later ones left it to its 5-minute retry
  expect(await attemptsOf()).toBe(2);
});

it('recovers waiting and failed deliveries in one call', async () => {
  const { r, down } = await flakyReceiver();
  const since = new Date(Date.now() - 60_000).toISOString();
  const ids = await outage(r.receiver.brand_id, r.receiver.id, 8);
  const preview = await h.client.call('previewRecovery', { receiver_id: r.receiver.id, since });
  expect(preview).toMatchObject({ failed: 0, waiting: 8, would_requeue: 8 });

  down.now = false;
  const done = await h.client.call('recoverDeliveries', {
    receiver_id: r.receiver.id,
    since,
    request_id: randomUUID(),
    actor_email: '',
  });
  expect(done).toEqual({
    requeued: 8,
    requeued_failed: 0,
    made_due: 8,
    remaining: 0,
    replayed: false,
  });
  await r.server.waitFor(() => processed(r).length >= 8, 20_000);
  expect(processed(r).sort()).toEqual([...ids].sort());
});

it('tells the owners once when a receiver starts failing and once when it recovers', async () => {
  // other receivers' notices may be waiting: take what this receiver got, and ack all
  const notices: Array<{ receiver_id: string; kind: ReceiverNoticeKind; failures: number }> = [];
  const drain = async () => {
    for (;;) {
      const { notices: got } = await mailer.call('claimReceiverNotices', {
        limit: 100,
        lease_ms: 0,
      });
      if (got.length === 0) return;
      for (const n of got) {
        notices.push(n);
        await mailer.call('ackReceiverNotice', { id: n.id });
      }
    }
  };
  await drain();
  notices.length = 0;

  const { r, down } = await flakyReceiver();
  // four failures: below the threshold, no notice
  await outage(r.receiver.brand_id, r.receiver.id, 4);
  await drain();
  expect(notices.filter((n) => n.receiver_id === r.receiver.id)).toEqual([]);
  // the fifth and more: one notice for the run, not one per attempt
  await outage(r.receiver.brand_id, r.receiver.id, 6);
  await drain();
  const failing = notices.filter((n) => n.receiver_id === r.receiver.id);
  expect(failing).toHaveLength(1);
  expect(failing[0]).toMatchObject({
    kind: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING,
    failures: 5,
  });

  // a Test's 2xx sends the backlog; the first real 2xx ends the run: one "recovered" notice
  down.now = false;
  await h.client.call('testReceiver', {
    receiver_id: r.receiver.id,
    event_type: 0,
    with_new_secret: false,
  });
  await r.server.waitFor(() => processed(r).length >= 10, 20_000);
  await waitFor(
    async () => {
      await drain();
      return notices.filter((n) => n.receiver_id === r.receiver.id).length >= 2 || undefined;
    },
    { timeoutMs: 10_000 },
  );
  const mine = notices.filter((n) => n.receiver_id === r.receiver.id);
  expect(mine.map((n) => n.kind)).toEqual([
    ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING,
    ReceiverNoticeKind.RECEIVER_NOTICE_KIND_RECOVERED,
  ]);
  expect(mine[1]!.failures).toBe(10);
});
