// After an outage: "retry now" sends a waiting delivery's next attempt at once; "recover since"
// re-queues exactly the failed deliveries of one receiver created in the window (oldest first, at
// most RECOVERY_MAX_PER_REQUEST, test deliveries excluded; nothing of another receiver or brand),
// each as a new attempt of the same event; a repeated request_id, even a concurrent double click,
// re-queues nothing more; a disabled receiver is refused. The real retry schedule
// (RETRY_TIME_SCALE=1) keeps failed attempts waiting.
import { randomUUID } from 'node:crypto';
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import {
  deliveriesOf,
  newBrandId,
  setEnabled as setReceiverEnabled,
  startHarness,
  type Harness,
} from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    label: 'recover',
    env: { RETRY_TIME_SCALE: '1', RECOVERY_MAX_PER_REQUEST: '2' },
  });
});
afterAll(() => h?.close());

const PAID = 'payout.paid' as const;
const sinceAgo = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function publish(brandId: string, n: number): Promise<string[]> {
  const events = Array.from({ length: n }, () => makeBusinessEvent({ brandId, type: PAID }));
  await h.producer.publish(events);
  return events.map((e) => e.id);
}

/** Waits until every delivery of the receiver has had its first attempt. */
const attempted = (receiverId: string, n: number) =>
  waitFor(
    async () => {
      const list = await deliveriesOf(h, receiverId);
      return list.length === n && list.every((d) => d.attempt_count >= 1) ? list : undefined;
    },
    { timeoutMs: 30_000 },
  );

const setEnabled = (receiverId: string, enabled: boolean) =>
  setReceiverEnabled(h, receiverId, enabled);

describe('retry now', () => {
  it('sends a waiting delivery’s next attempt at once, same event, next attempt number', async () => {
    const brand = newBrandId();
    let down = true;
    const r = await h.addReceiver({
      brandId: brand,
      events: [PAID],
      respondWith: () => (down ? 503 : undefined),
    });
    const [eventId] = await publish(brand, 1);
    const [waiting] = await attempted(r.receiver.id, 1);
    expect(waiting).toMatchObject({
      status: DeliveryStatus.DELIVERY_STATUS_PENDING,
      attempt_count: 1,
    });
    // a 503 waits at least 60 s before the next attempt
    expect(Date.parse(waiting!.next_attempt_at) - Date.now()).toBeGreaterThan(30_000);

    down = false;
    const asked = Date.now();
    const retried = (await h.client.call('retryDelivery', { delivery_id: waiting!.id })).delivery!;
    expect(Date.parse(retried.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    await r.server.waitFor((rx) => rx.some((d) => d.outcome === 'processed'), 15_000);
    expect(Date.now() - asked).toBeLessThan(10_000);
    expect(r.server.received.map((d) => [d.event?.id, d.attempt])).toEqual([
      [eventId, 1],
      [eventId, 2],
    ]);

    const done = await waitFor(
      async () => {
        const d = (await h.client.call('getDelivery', { delivery_id: waiting!.id })).delivery!;
        return d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED ? d : undefined;
      },
      { timeoutMs: 10_000 },
    );
    await expect(h.client.call('retryDelivery', { delivery_id: done.id })).rejects.toMatchObject({
      code: 'precondition_failed',
      message: expect.stringMatching(/resend/) as string,
    });
    await setEnabled(r.receiver.id, false);
    await expect(h.client.call('retryDelivery', { delivery_id: done.id })).rejects.toMatchObject({
      code: 'receiver_disabled',
    });
    const { entries } = await h.client.call('listActivity', {
      brand_id: brand,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => e.action)).toContain('delivery.retried');
  });
});

describe('retry all waiting', () => {
  it('makes every waiting delivery of one receiver due now, oldest first, within the bound, each spending one attempt of its round', async () => {
    const brand = newBrandId();
    let down = true;
    // a slow 503 (within the harness's 3 s timeout): an attempt made due stays in flight a while
    const respondWith = () => (down ? { status: 503, delayMs: 2_500 } : undefined);
    const r = await h.addReceiver({ brandId: brand, events: [PAID], respondWith });
    const other = await h.addReceiver({ brandId: brand, events: [PAID], respondWith });
    const events = await publish(brand, 3);
    const waiting = await attempted(r.receiver.id, 3);
    await attempted(other.receiver.id, 3);
    // a 503 waits at least 60 s: each waits for its second attempt, the first of its round made
    expect(waiting.map((d) => [d.status, d.attempt_count, d.attempts_in_round])).toEqual(
      Array.from({ length: 3 }, () => [DeliveryStatus.DELIVERY_STATUS_PENDING, 1, 1]),
    );
    const retryAll = (receiverId: string) =>
      h.client.call('retryWaitingDeliveries', { receiver_id: receiverId, actor_email: '' });

    // the bound (RECOVERY_MAX_PER_REQUEST=2 here) makes the two oldest due, the next call the
    // rest; deliveries due or in flight are not made due twice
    expect(await retryAll(r.receiver.id)).toEqual({ made_due: 2, remaining: 1 });
    expect(await retryAll(r.receiver.id)).toEqual({ made_due: 1, remaining: 0 });
    expect(await retryAll(r.receiver.id)).toEqual({ made_due: 0, remaining: 0 });
    // each spent its second attempt, still refused, and waits again
    await waitFor(
      async () =>
        (await deliveriesOf(h, r.receiver.id)).every(
          (d) => d.attempt_count === 2 && Date.parse(d.next_attempt_at) > Date.now(),
        ),
      { timeoutMs: 15_000, what: 'three second attempts refused' },
    );

    // back up: the two oldest now, and the receiver's catch-up sends the third by itself
    down = false;
    expect(await retryAll(r.receiver.id)).toEqual({ made_due: 2, remaining: 1 });
    const done = await waitFor(
      async () => {
        const list = await deliveriesOf(h, r.receiver.id);
        return list.every((d) => d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED)
          ? list
          : undefined;
      },
      { timeoutMs: 15_000, what: 'all three delivered' },
    );
    expect(done.map((d) => [d.attempt_count, d.attempts_in_round])).toEqual([
      [3, 3],
      [3, 3],
      [3, 3],
    ]);
    const processed = r.server.received.filter((d) => d.outcome === 'processed');
    expect(processed.map((d) => d.attempt)).toEqual([3, 3, 3]);
    expect(processed.map((d) => d.event?.id).sort()).toEqual([...events].sort());
    expect(
      processed
        .slice(0, 2)
        .map((d) => d.event?.id)
        .sort(),
    ).toEqual(
      waiting
        .slice(-2)
        .map((d) => d.event_id)
        .sort(),
    );

    // the other receiver's deliveries still wait for their own schedule
    const untouched = await deliveriesOf(h, other.receiver.id);
    expect(
      untouched.map((d) => [d.status, d.attempt_count, Date.parse(d.next_attempt_at) > Date.now()]),
    ).toEqual(Array.from({ length: 3 }, () => [DeliveryStatus.DELIVERY_STATUS_PENDING, 1, true]));

    // a resend starts a new round: the attempt count goes on, the round's count starts again
    await h.client.call('resendDelivery', { delivery_id: done[0]!.id });
    const again = await waitFor(
      async () => {
        const d = (await h.client.call('getDelivery', { delivery_id: done[0]!.id })).delivery!;
        return d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED && d.attempt_count === 4
          ? d
          : undefined;
      },
      { timeoutMs: 15_000, what: 'the resent delivery delivered' },
    );
    expect(again.attempts_in_round).toBe(1);

    // a disabled receiver has nothing waiting (disabling failed it), and says so
    await setEnabled(other.receiver.id, false);
    await expect(retryAll(other.receiver.id)).rejects.toMatchObject({
      code: 'receiver_disabled',
      message: expect.stringMatching(/is disabled/) as string,
    });
    const { entries } = await h.client.call('listActivity', {
      brand_id: brand,
      page_size: 0,
      page_token: '',
      actor: '',
      action: 'deliveries.retried',
      subject_id: '',
      since: '',
      until: '',
    });
    const spent = 'each spending one attempt of its round';
    expect(entries.map((e) => e.summary.replace(/^[^:]*: /, ''))).toEqual([
      `2 waiting deliveries due now, ${spent}; 1 still waiting`,
      `1 waiting delivery due now, ${spent}`,
      `2 waiting deliveries due now, ${spent}; 1 still waiting`,
    ]);
  });
});

describe('a receiver disabled while an attempt is in flight', () => {
  it('leaves the delivery failed, not waiting to retry, so Recover since counts it', async () => {
    const brand = newBrandId();
    let arrived = false;
    const r = await h.addReceiver({
      brandId: brand,
      events: [PAID],
      respondWith: () => {
        arrived = true;
        return { status: 503, delayMs: 1_500 }; // within the harness's 3 s timeout
      },
    });
    await publish(brand, 1);
    await waitFor(() => arrived, { timeoutMs: 15_000 });
    // disabling fails the pending delivery while its attempt is still waiting for the answer
    await setEnabled(r.receiver.id, false);
    const [done] = await attempted(r.receiver.id, 1);
    expect(done).toMatchObject({
      status: DeliveryStatus.DELIVERY_STATUS_FAILED,
      attempt_count: 1,
      last_status: 503,
      last_error: 'receiver disabled by an owner',
      next_attempt_at: '',
    });
    await setEnabled(r.receiver.id, true);
    const preview = await h.client.call('previewRecovery', {
      receiver_id: r.receiver.id,
      since: sinceAgo(3600_000),
    });
    expect(preview.failed).toBe(1);
  });
});

describe('recover since', () => {
  it('re-queues exactly the failed deliveries of one receiver in the window, once per request_id', async () => {
    const brand = newBrandId();
    const otherBrand = newBrandId();
    let down = true;
    const respondWith = () => (down ? 500 : undefined);
    const a = await h.addReceiver({ brandId: brand, events: [PAID], respondWith });
    const b = await h.addReceiver({ brandId: brand, events: [PAID], respondWith });
    const c = await h.addReceiver({ brandId: otherBrand, events: [PAID], respondWith });

    // the outage: five events for the brand (to a and b), two for the other brand, and a Test
    const events = await publish(brand, 5);
    await publish(otherBrand, 2);
    await h.client.call('testReceiver', {
      receiver_id: a.receiver.id,
      event_type: EVENT_TYPES.toProto(PAID),
      with_new_secret: false,
    });
    const aDeliveries = await attempted(a.receiver.id, 6);
    await attempted(b.receiver.id, 5);
    await attempted(c.receiver.id, 2);
    // disabling fails what is pending, visibly; enabling again leaves it failed
    for (const r of [a, b, c]) {
      await setEnabled(r.receiver.id, false);
      await setEnabled(r.receiver.id, true);
    }
    // two of a's deliveries are older than the window
    const byEvent = new Map(aDeliveries.filter((d) => !d.test).map((d) => [d.event_id, d.id]));
    const old = events.slice(0, 2).map((e) => byEvent.get(e)!);
    await h.db.pool.query(
      `update webhooks.deliveries set created_at = now() - interval '3 hours' where id = any($1)`,
      [old],
    );
    // the rest get distinct, ordered creation times, so "oldest first" is observable
    const inWindow = events.slice(2).map((e) => byEvent.get(e)!);
    for (const [i, id] of inWindow.entries()) {
      await h.db.pool.query(
        `update webhooks.deliveries set created_at = now() - interval '30 minutes' + $2 * interval '1 second' where id = $1`,
        [id, i],
      );
    }
    const since = sinceAgo(3600_000);

    const preview = await h.client.call('previewRecovery', { receiver_id: a.receiver.id, since });
    expect(preview).toMatchObject({ failed: 3, would_requeue: 2, max_per_request: 2 });
    expect(Date.parse(preview.earliest_since)).toBeLessThan(Date.now() - 13.9 * 24 * 3600_000);

    down = false;
    const seenBefore = [a, b, c].map((r) => r.server.received.length);
    // a double click: the same request_id twice at once re-queues once
    const requestId = randomUUID();
    const twice = await Promise.all([
      h.client.call('recoverDeliveries', {
        receiver_id: a.receiver.id,
        since,
        request_id: requestId,
        actor_email: '',
      }),
      h.client.call('recoverDeliveries', {
        receiver_id: a.receiver.id,
        since,
        request_id: requestId,
        actor_email: '',
      }),
    ]);
    expect(twice.map((x) => [x.requeued, x.remaining]).sort()).toEqual([
      [2, 1],
      [2, 1],
    ]);
    expect(twice.map((x) => x.replayed).sort()).toEqual([false, true]);
    await a.server.waitFor((rx) => rx.length >= seenBefore[0]! + 2, 15_000);

    const again = await h.client.call('recoverDeliveries', {
      receiver_id: a.receiver.id,
      since,
      request_id: requestId,
      actor_email: '',
    });
    expect(again).toEqual({
      requeued: 2,
      requeued_failed: 2,
      made_due: 0,
      remaining: 1,
      replayed: true,
    });
    const rest = await h.client.call('recoverDeliveries', {
      receiver_id: a.receiver.id,
      since,
      request_id: randomUUID(),
      actor_email: '',
    });
    expect(rest).toEqual({
      requeued: 1,
      requeued_failed: 1,
      made_due: 0,
      remaining: 0,
      replayed: false,
    });
    await a.server.waitFor((rx) => rx.length >= seenBefore[0]! + 3, 15_000);

    // a got the three events of the window, the two oldest first (sent side by side), as new
    // attempts of the same events
    const resent = a.server.received.slice(seenBefore[0]);
    expect(
      resent
        .slice(0, 2)
        .map((d) => d.event?.id)
        .sort(),
    ).toEqual(events.slice(2, 4).sort());
    expect(resent[2]!.event?.id).toBe(events[4]);
    expect(resent.every((d) => d.outcome === 'processed' && d.attempt! >= 2)).toBe(true);
    const final = await waitFor(
      async () => {
        const list = await deliveriesOf(h, a.receiver.id);
        return list.filter((d) => d.status === DeliveryStatus.DELIVERY_STATUS_SUCCEEDED).length ===
          3
          ? list
          : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const failed = final.filter((d) => d.status === DeliveryStatus.DELIVERY_STATUS_FAILED);
    expect(failed.map((d) => d.id).sort()).toEqual([...old, final.find((d) => d.test)!.id].sort());
    // nothing of the other receiver or the other brand moved
    for (const r of [b, c]) {
      const list = await deliveriesOf(h, r.receiver.id);
      expect(list.every((d) => d.status === DeliveryStatus.DELIVERY_STATUS_FAILED)).toBe(true);
    }
    expect([b, c].map((r) => r.server.received.length)).toEqual(seenBefore.slice(1));

    const { entries } = await h.client.call('listActivity', {
      brand_id: brand,
      page_size: 0,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    const recovered = entries.filter((e) => e.action === 'deliveries.recovered');
    expect(recovered.map((e) => e.summary)).toEqual([
      expect.stringMatching(
        /since \S+, 1 failed deliveries re-queued and 0 waiting ones due now$/,
      ) as string,
      expect.stringMatching(
        /since \S+, 2 failed deliveries re-queued and 0 waiting ones due now; 1 left beyond the per-request bound$/,
      ) as string,
    ]);
  });

  it('refuses a disabled receiver, a window beyond 14 days or in the future, and a reused request_id', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [PAID] });
    const other = await h.addReceiver({ brandId: brand, events: [PAID] });
    const since = sinceAgo(3600_000);
    const call = (over: Record<string, string>) =>
      h.client.call('recoverDeliveries', {
        receiver_id: r.receiver.id,
        since,
        request_id: randomUUID(),
        ...over,
        actor_email: '',
      });
    for (const bad of [
      sinceAgo(15 * 24 * 3600_000),
      new Date(Date.now() + 60_000).toISOString(),
      'last week',
    ]) {
      await expect(call({ since: bad })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(
        h.client.call('previewRecovery', { receiver_id: r.receiver.id, since: bad }),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    }
    await expect(call({ request_id: 'not-a-uuid' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    const requestId = randomUUID();
    await expect(call({ request_id: requestId })).resolves.toEqual({
      requeued: 0,
      requeued_failed: 0,
      made_due: 0,
      remaining: 0,
      replayed: false,
    });
    await expect(
      call({ request_id: requestId, receiver_id: other.receiver.id }),
    ).rejects.toMatchObject({
      code: 'request_conflict',
    });
    await setEnabled(r.receiver.id, false);
    await expect(call({})).rejects.toMatchObject({
      code: 'receiver_disabled',
      message: expect.stringMatching(/disabled: enable it/) as string,
    });
  });
});
