// Retries follow the schedule (scaled by RETRY_TIME_SCALE=0.001): a receiver that fails twice and
// then answers 2xx gets the event on attempt 3 with the same event id; 3xx (not followed, even to a
// private address), 4xx, 5xx and timeouts are failures; 410 disables the receiver; failure_count,
// last_status and last_delivery_at are right after each step.
import { createServer, type Server } from 'node:https';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import {
  deliveriesOf,
  deliveryRows,
  newBrandId,
  receiverState,
  startHarness,
  type Harness,
} from './harness';

let h: Harness;
const brand = newBrandId();
let redirector: Server;

beforeAll(async () => {
  h = await startHarness({ label: 'retries' });
});
afterAll(async () => {
  redirector?.close();
  await h?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a receiver that fails twice, then answers 2xx', () => {
  it('gets the event on attempt 3 with the same id, and the receiver state follows each step', async () => {
    const states: Array<{ last_status: number; failure_count: number; last_delivery_at: string }> =
      [];
    let id = '';
    let entered: () => void = () => undefined;
    const third = new Promise<void>((r) => (entered = r));
    const r = await h.addReceiver({
      brandId: brand,
      events: ['payout.paid'],
      // attempt 2 answers late, and attempt 3 is processed slowly: while each is in flight the
      // receiver's state shows the previous attempt, which the test reads
      respondWith: (n) => (n === 1 ? 500 : n === 2 ? { status: 503, delayMs: 1_500 } : undefined),
      onEvent: async () => {
        entered();
        await sleep(1_500);
      },
    });
    id = r.receiver.id;
    const snapshot = async () => {
      const s = await receiverState(h, brand, id);
      states.push({
        last_status: s.last_status,
        failure_count: s.failure_count,
        last_delivery_at: s.last_delivery_at,
      });
    };
    expect(await receiverState(h, brand, id)).toMatchObject({
      last_status: 0,
      failure_count: 0,
      last_delivery_at: '',
    });

    const event = makeBusinessEvent({
      brandId: brand,
      type: 'payout.paid',
      object: { resource: 'payouts', id: 'po_1', status: 'paid' },
    });
    await h.producer.publish([event]);
    await r.server.waitFor((rx) => rx.length >= 2, 30_000);
    await snapshot(); // after attempt 1 (500)
    await third;
    await snapshot(); // after attempt 2 (503)
    await waitFor(
      async () =>
        (await deliveriesOf(h, id))[0]?.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      {
        timeoutMs: 30_000,
      },
    );
    await snapshot(); // after attempt 3 (200)

    expect(
      states.map(({ last_status, failure_count }) => ({ last_status, failure_count })),
    ).toEqual([
      { last_status: 500, failure_count: 1 },
      { last_status: 503, failure_count: 2 },
      { last_status: 200, failure_count: 0 },
    ]);
    const times = states.map((s) => Date.parse(s.last_delivery_at));
    expect(times.every((t) => !Number.isNaN(t))).toBe(true);
    expect(times[0]).toBeLessThan(times[1]!);
    expect(times[1]).toBeLessThan(times[2]!);

    const received = r.server.received;
    expect(received.map((d) => d.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    expect(received.map((d) => d.event?.id)).toEqual([event.id, event.id, event.id]);
    expect(received.every((d) => d.verdict.ok)).toBe(true); // re-signed validly every time
    expect(
      new Set(received.map((d) => d.headers['x-service-signature'])).size,
    ).toBeGreaterThanOrEqual(2);

    const [delivery] = await deliveriesOf(h, id);
    expect(delivery).toMatchObject({
      attempt_count: 3,
      last_status: 200,
      last_error: '',
      event_id: event.id,
    });
    expect(delivery!.attempts.map((a) => [a.number, a.status_code, a.error_class])).toEqual([
      [1, 500, 'http_status'],
      [2, 503, 'http_status'],
      [3, 200, ''],
    ]);
    // 503 waits at least 60 s (scaled: 60 ms) before attempt 3
    const started = delivery!.attempts.map((a) => Date.parse(a.started_at));
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(1_500 + 60);
  });
});

describe('failures', () => {
  it.each([
    ['a 4xx', 400, 'http_status'],
    ['a 5xx', 502, 'http_status'],
    ['a 429', 429, 'http_status'],
  ])('%s is a failure and is retried', async (_name, status, errorClass) => {
    const r = await h.addReceiver({
      brandId: brand,
      events: ['campaign.settled'],
      respondWith: () => status,
    });
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'campaign.settled' })]);
    await r.server.waitFor((rx) => rx.length >= 2, 30_000);
    await waitFor(async () => (await deliveriesOf(h, r.receiver.id))[0]!.attempt_count >= 2, {
      timeoutMs: 10_000,
    });
    const [d] = await deliveriesOf(h, r.receiver.id);
    expect(d!.attempts[0]).toMatchObject({ status_code: status, error_class: errorClass });
    expect(d!.status).not.toBe(DeliveryStatus.DELIVERY_STATUS_SUCCEEDED);
    const s = await receiverState(h, brand, r.receiver.id);
    expect(s.last_status).toBe(status);
    expect(s.failure_count).toBeGreaterThanOrEqual(2);
    await h.client.call('removeReceiver', { receiver_id: r.receiver.id });
  });

  it('a timeout (no answer within DELIVERY_TIMEOUT_MS) is a failure', async () => {
    const r = await h.addReceiver({
      brandId: brand,
      events: ['submission.rejected'],
      respondWith: () => 'hang',
    });
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'submission.rejected' })]);
    await waitFor(async () => (await deliveriesOf(h, r.receiver.id))[0]?.attempt_count === 1, {
      timeoutMs: 20_000,
    });
    const [d] = await deliveriesOf(h, r.receiver.id);
    expect(d!.attempts[0]).toMatchObject({ status_code: 0, error_class: 'timeout' });
    expect(d!.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(2_900);
    expect(d!.last_error).toMatch(/timed out after 3 s without an answer/);
    expect(await receiverState(h, brand, r.receiver.id)).toMatchObject({
      last_status: 0,
      failure_count: 1,
    });
    await h.client.call('removeReceiver', { receiver_id: r.receiver.id });
  });

  it('a 302 is a failure and is not followed, even to a receiver that would accept it', async () => {
    const trap = await h.addReceiver({ brandId: newBrandId(), events: ['submission.approved'] });
    redirector = createServer(h.ca.tls, (_req, res) => {
      res.writeHead(302, { Location: `${trap.server.url}/hooks` }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const port = (redirector.address() as { port: number }).port;
    const r = await h.addReceiver({
      brandId: brand,
      events: ['submission.approved'],
      url: `https://127.0.0.1:${port}/hooks`,
    });
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'submission.approved' })]);
    await waitFor(async () => (await deliveriesOf(h, r.receiver.id))[0]!.attempt_count >= 2, {
      timeoutMs: 20_000,
    });
    const [d] = await deliveriesOf(h, r.receiver.id);
    expect(d!.attempts[0]).toMatchObject({ status_code: 302, error_class: 'redirect' });
    expect(d!.last_error).toMatch(/not followed/);
    expect(trap.server.received).toEqual([]);
    await h.client.call('removeReceiver', { receiver_id: r.receiver.id });
  });
});

describe('410 Gone', () => {
  it('disables the receiver with the reason, fails the delivery, and later events queue nothing', async () => {
    const r = await h.addReceiver({
      brandId: brand,
      events: ['payout.paid'],
      respondWith: () => 410,
    });
    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
    await waitFor(async () => !(await receiverState(h, brand, r.receiver.id)).enabled, {
      timeoutMs: 20_000,
    });
    const s = await receiverState(h, brand, r.receiver.id);
    expect(s).toMatchObject({ enabled: false, last_status: 410, failure_count: 1 });
    expect(s.disabled_reason).toMatch(/410/);
    const [d] = await deliveriesOf(h, r.receiver.id);
    expect(d).toMatchObject({ status: DeliveryStatus.DELIVERY_STATUS_FAILED, attempt_count: 1 });
    expect(r.server.received).toHaveLength(1);

    await h.producer.publish([makeBusinessEvent({ brandId: brand, type: 'payout.paid' })]);
    await sleep(1_500);
    expect(await deliveryRows(h, r.receiver.id)).toHaveLength(1);
    expect(r.server.received).toHaveLength(1);
  });
});
