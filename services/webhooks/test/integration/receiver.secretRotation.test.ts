// Rotating a signing secret with an overlap, against real HTTPS receivers that verify every
// delivery as docs/contract.md#receiver-verification says: the new secret is shown once and
// deliveries stay signed with the current one; a Test signed with the new secret shows whether the
// receiver accepts it; after the switch (now, or at a chosen time) every attempt, a retry of an
// event first sent before it included, is signed with the new secret and the old one is destroyed;
// a receiver holding both loses nothing, one holding only the old fails only after the switch;
// cancelling discards the new secret. Each change is in the activity log, no secret in the log.
import type { ScriptedResponse } from '@brand/example-receiver';
import { DeliveryStatus, type Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { makeBusinessEvent, TEST_WEBHOOK_SECRET_KEY, waitFor } from '@brand/testkit';
import { SecretBox } from '@brand/shared/secrets';
import {
  newBrandId,
  signedWith,
  startHarness,
  type Harness,
  type RegisteredReceiver,
} from './harness';

let h: Harness;
const secretsSeen: string[] = [];

beforeAll(async () => {
  h = await startHarness({ label: 'rotation', env: { MAINTENANCE_INTERVAL_MS: '300' } });
});
afterAll(() => h?.close());

const PAID = 'payout.paid' as const;

async function receiver(
  brandId: string,
  respondWith?: (n: number) => ScriptedResponse | undefined,
) {
  const r = await h.addReceiver({ brandId, events: [PAID], respondWith });
  secretsSeen.push(r.secret);
  return r;
}

async function rotate(r: RegisteredReceiver): Promise<{ receiver: Receiver; secret: string }> {
  const res = await h.client.call('rotateSecret', { receiver_id: r.receiver.id, actor_email: '' });
  secretsSeen.push(res.new_secret);
  return { receiver: res.receiver!, secret: res.new_secret };
}

const get = async (id: string): Promise<Receiver> =>
  (await h.client.call('getReceiver', { receiver_id: id })).receiver!;

/** The receiver's rotation once its latest Test with the new secret ended as `status`. */
const rotationTest = (id: string, status: DeliveryStatus) =>
  waitFor(
    async () => {
      const rot = (await get(id)).rotation;
      return rot?.test_status === status ? rot : undefined;
    },
    { timeoutMs: 30_000 },
  );

const publish = async (brandId: string): Promise<string> => {
  const event = makeBusinessEvent({ brandId, type: PAID });
  await h.producer.publish([event]);
  return event.id;
};

const testWithNewSecret = (id: string) =>
  h.client.call('testReceiver', {
    receiver_id: id,
    event_type: EVENT_TYPES.toProto(PAID),
    with_new_secret: true,
  });

async function storedSecrets(id: string) {
  const { rows } = await h.db.pool.query<{
    secret_ciphertext: Buffer;
    secret_key_id: string;
    pending_secret_ciphertext: Buffer | null;
  }>(
    `select secret_ciphertext, secret_key_id, pending_secret_ciphertext from webhooks.receivers where id = $1`,
    [id],
  );
  return rows[0]!;
}

describe('starting a rotation', () => {
  it('shows the new secret once, keeps signing with the current one, and tests the new one', async () => {
    const brand = newBrandId();
    const r = await receiver(brand); // holds the current secret only
    const { receiver: rotated, secret } = await rotate(r);
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(secret).not.toBe(r.secret);
    expect(rotated.rotation).toMatchObject({
      created_by: 'operator',
      switch_at: '',
      test_delivery_id: '',
    });
    const shown = await get(r.receiver.id);
    expect(shown.rotation?.created_at).toBe(rotated.rotation?.created_at);
    expect(JSON.stringify(shown)).not.toContain(secret);
    await expect(rotate(r)).rejects.toMatchObject({ code: 'rotation_pending' });

    const eventId = await publish(brand);
    await r.server.waitFor((rx) => rx.some((d) => d.event?.id === eventId), 30_000);
    const real = r.server.received.find((d) => d.event?.id === eventId)!;
    expect(signedWith(real, { old: r.secret, new: secret })).toBe('old');

    // the receiver does not hold the new secret yet: the page says it refused the Test
    const refused = (await testWithNewSecret(r.receiver.id)).delivery!;
    expect(refused).toMatchObject({ test: true, signed_with_new_secret: true });
    const failedTest = await rotationTest(r.receiver.id, DeliveryStatus.DELIVERY_STATUS_FAILED);
    expect(failedTest).toMatchObject({
      test_delivery_id: refused.id,
      test_last_status: 401,
      test_last_error: '401 from the receiver',
    });
    expect(signedWith(r.server.received.at(-1)!, { old: r.secret, new: secret })).toBe('new');

    // it holds both now: the next Test is accepted, and a failed Test never counted
    r.secrets.push(secret);
    const accepted = (await testWithNewSecret(r.receiver.id)).delivery!;
    const okTest = await rotationTest(r.receiver.id, DeliveryStatus.DELIVERY_STATUS_SUCCEEDED);
    expect(okTest).toMatchObject({
      test_delivery_id: accepted.id,
      test_last_status: 200,
      test_last_error: '',
    });
    expect((await get(r.receiver.id)).failure_count).toBe(0);
  });
});

describe('switching now', () => {
  it('signs the retry of an event first sent before the switch with the new secret and destroys the old one', async () => {
    const brand = newBrandId();
    // attempt 1 is answered late with a 500: the switch happens while it is in flight
    const r = await receiver(brand, (n) => (n === 1 ? { status: 500, delayMs: 1_500 } : undefined));
    const { secret } = await rotate(r);
    r.secrets.push(secret); // the receiver holds both during the window
    const before = await storedSecrets(r.receiver.id);
    const eventId = await publish(brand);
    await r.server.waitFor((rx) => rx.length >= 1, 30_000);

    const switched = (
      await h.client.call('switchSecret', { receiver_id: r.receiver.id, at: '', actor_email: '' })
    ).receiver!;
    expect(switched.rotation).toBeUndefined();
    await r.server.waitFor((rx) => rx.some((d) => d.outcome === 'processed'), 30_000);
    const [first, retry] = r.server.received;
    expect([first!.event?.id, retry!.event?.id]).toEqual([eventId, eventId]);
    expect([first!.attempt, retry!.attempt]).toEqual([1, 2]);
    expect(signedWith(first!, { old: r.secret, new: secret })).toBe('old');
    expect(signedWith(retry!, { old: r.secret, new: secret })).toBe('new');

    // the new secret moved into place as it was; the old ciphertext is gone from the row
    const after = await storedSecrets(r.receiver.id);
    expect(after.pending_secret_ciphertext).toBeNull();
    expect(after.secret_ciphertext.equals(before.pending_secret_ciphertext!)).toBe(true);
    const box = new SecretBox(TEST_WEBHOOK_SECRET_KEY);
    expect(
      box.open({ ciphertext: after.secret_ciphertext, keyId: after.secret_key_id }, r.receiver.id),
    ).toBe(secret);
    const { rows } = await h.db.pool.query(
      `select 1 from webhooks.receivers where secret_ciphertext = $1 or pending_secret_ciphertext = $1`,
      [before.secret_ciphertext],
    );
    expect(rows).toHaveLength(0);

    await expect(
      h.client.call('switchSecret', { receiver_id: r.receiver.id, at: '', actor_email: '' }),
    ).rejects.toMatchObject({ code: 'no_rotation' });
    await expect(
      h.client.call('cancelRotation', { receiver_id: r.receiver.id, actor_email: '' }),
    ).rejects.toMatchObject({ code: 'no_rotation' });
  });
});

describe('a scheduled switch', () => {
  it('fails a receiver holding only the old secret only after the switch time; it then recovers with the new one', async () => {
    const brand = newBrandId();
    const r = await receiver(brand); // keeps only the old secret
    const { secret } = await rotate(r);
    // Six seconds: room for one delivery before the switch on a loaded CI machine.
    const at = new Date(Date.now() + 6_000);
    const scheduled = (
      await h.client.call('switchSecret', {
        receiver_id: r.receiver.id,
        at: at.toISOString(),
        actor_email: '',
      })
    ).receiver!;
    expect(Date.parse(scheduled.rotation!.switch_at)).toBe(at.getTime());

    const beforeSwitch = await publish(brand);
    await r.server.waitFor((rx) => rx.some((d) => d.event?.id === beforeSwitch), 30_000);
    const early = r.server.received.find((d) => d.event?.id === beforeSwitch)!;
    expect(early.outcome).toBe('processed');
    expect(signedWith(early, { old: r.secret, new: secret })).toBe('old');
    expect(Date.now()).toBeLessThan(at.getTime()); // it really was before the switch

    await new Promise((done) => setTimeout(done, at.getTime() - Date.now() + 100));
    const afterSwitch = await publish(brand);
    await r.server.waitFor((rx) => rx.filter((d) => d.outcome === 'refused').length >= 1, 30_000);
    const refused = r.server.received.filter((d) => d.outcome === 'refused');
    expect(refused.every((d) => signedWith(d, { old: r.secret, new: secret }) === 'new')).toBe(
      true,
    );
    expect(refused.every((d) => d.status === 401)).toBe(true);

    // the owner updates the receiver late: the retries deliver the event, nothing is lost
    r.secrets.push(secret);
    await r.server.waitFor(
      (rx) => rx.some((d) => d.outcome === 'processed' && d.rawBody.includes(afterSwitch)),
      30_000,
    );
    // the sweep has destroyed the old secret and logged the switch as the service's
    await waitFor(
      async () => (await storedSecrets(r.receiver.id)).pending_secret_ciphertext === null,
      {
        timeoutMs: 10_000,
      },
    );
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
    expect(entries.find((e) => e.action === 'receiver.secret_switched')).toMatchObject({
      actor_email: 'webhooks service',
    });
  });

  it('refuses a time more than 7 days ahead or unreadable, and a switch without a rotation', async () => {
    const r = await receiver(newBrandId());
    await expect(
      h.client.call('switchSecret', { receiver_id: r.receiver.id, at: '', actor_email: '' }),
    ).rejects.toMatchObject({ code: 'no_rotation' });
    await rotate(r);
    for (const at of [
      new Date(Date.now() + 8 * 24 * 3600_000).toISOString(),
      'tomorrow',
      '2026-11-20T14:00',
    ]) {
      await expect(
        h.client.call('switchSecret', { receiver_id: r.receiver.id, at, actor_email: '' }),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    }
    expect((await get(r.receiver.id)).rotation?.switch_at).toBe('');
  });
});

describe('cancelling', () => {
  it('discards the new secret; deliveries stay on the current one', async () => {
    const brand = newBrandId();
    const r = await receiver(brand);
    const { secret } = await rotate(r);
    const cancelled = (
      await h.client.call('cancelRotation', { receiver_id: r.receiver.id, actor_email: '' })
    ).receiver!;
    expect(cancelled.rotation).toBeUndefined();
    expect((await storedSecrets(r.receiver.id)).pending_secret_ciphertext).toBeNull();
    await expect(testWithNewSecret(r.receiver.id)).rejects.toMatchObject({ code: 'no_rotation' });
    const eventId = await publish(brand);
    await r.server.waitFor(
      (rx) => rx.some((d) => d.event?.id === eventId && d.outcome === 'processed'),
      30_000,
    );
    expect(signedWith(r.server.received.at(-1)!, { old: r.secret, new: secret })).toBe('old');

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
    expect(entries.map((e) => e.action).slice(0, 2)).toEqual([
      'receiver.secret_rotation_cancelled',
      'receiver.secret_rotation_started',
    ]);
  });
});

describe('the log', () => {
  it('never holds a signing secret, current or new', () => {
    const log = h.webhooks.logs().join('\n');
    expect(secretsSeen.length).toBeGreaterThanOrEqual(8);
    for (const s of secretsSeen) expect(log).not.toContain(s);
    expect(log).not.toMatch(/whsec_/);
  });
});
