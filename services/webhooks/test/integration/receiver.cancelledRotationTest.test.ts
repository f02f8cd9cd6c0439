// A Test queued with a rotation's new secret and left queued when that rotation is cancelled is
// never signed with another secret. Rotations number their new secret by version (current + 1),
// and a rotation started after a cancelled one gets the same number: matching on it alone, the
// worker signed the cancelled rotation's Test with the next rotation's secret, and the receiver
// (holding it) accepted a Test nobody had asked for with that secret (a hostile review,
// 2026-11-30). Real processes: an admin and consumer process with no worker at first, so the
// Test is still queued when the rotation is cancelled; a worker only after the second rotation.
import { DeliveryStatus } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { waitFor } from '@brand/testkit';
import { newBrandId, signedWith, startHarness, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ label: 'cancelled-test', env: { WEBHOOKS_ROLES: 'admin,consumer' } });
});
afterAll(() => h?.close());

const PAID = 'payout.paid' as const;

const rotate = async (id: string): Promise<string> =>
  (await h.client.call('rotateSecret', { receiver_id: id, actor_email: '' })).new_secret;

const testWithNewSecret = async (id: string): Promise<string> =>
  (
    await h.client.call('testReceiver', {
      receiver_id: id,
      event_type: EVENT_TYPES.toProto(PAID),
      with_new_secret: true,
    })
  ).delivery!.id;

const delivery = async (id: string) =>
  (await h.client.call('getDelivery', { delivery_id: id })).delivery!;

const finished = (id: string) =>
  waitFor(
    async () => {
      const d = await delivery(id);
      return d.status === DeliveryStatus.DELIVERY_STATUS_PENDING ? undefined : d;
    },
    { timeoutMs: 30_000 },
  );

describe('a Test queued for a rotation that is then cancelled', () => {
  it('fails with secret_unavailable and is never signed with the next rotation’s secret, resent or not', async () => {
    const brand = newBrandId();
    const r = await h.addReceiver({ brandId: brand, events: [PAID] });
    const p1 = await rotate(r.receiver.id);
    const cancelledTest = await testWithNewSecret(r.receiver.id);
    await h.client.call('cancelRotation', { receiver_id: r.receiver.id, actor_email: '' });
    const p2 = await rotate(r.receiver.id);
    // the receiver holds every secret: anything signed with any of them would be accepted
    r.secrets.push(p1, p2);

    await h.another({ WEBHOOKS_ROLES: 'worker' });
    const cancelled = await finished(cancelledTest);
    expect(cancelled).toMatchObject({
      status: DeliveryStatus.DELIVERY_STATUS_FAILED,
      test: true,
      signed_with_new_secret: true,
    });
    expect(cancelled.attempts).toHaveLength(1);
    expect(cancelled.attempts[0]).toMatchObject({
      status_code: 0,
      error_class: 'secret_unavailable',
      error_message:
        'the new secret this test was to be signed with was discarded (rotation cancelled)',
    });
    // resent while the second rotation is pending: still nothing to sign it with
    await h.client.call('resendDelivery', { delivery_id: cancelledTest });
    const resent = await waitFor(
      async () => {
        const d = await delivery(cancelledTest);
        return d.attempts.length === 2 && d.status !== DeliveryStatus.DELIVERY_STATUS_PENDING
          ? d
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(resent.status).toBe(DeliveryStatus.DELIVERY_STATUS_FAILED);
    expect(resent.attempts.map((a) => a.error_class)).toEqual([
      'secret_unavailable',
      'secret_unavailable',
    ]);

    // the second rotation's own Test is signed with its secret and shown with it
    const ownTest = await testWithNewSecret(r.receiver.id);
    expect(await finished(ownTest)).toMatchObject({
      status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
    });
    const rotation = (await h.client.call('getReceiver', { receiver_id: r.receiver.id })).receiver!
      .rotation;
    expect(rotation).toMatchObject({
      test_delivery_id: ownTest,
      test_status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
      test_last_status: 200,
    });
    // the receiver got exactly one request: the second rotation's Test, signed with p2
    expect(r.server.received).toHaveLength(1);
    expect(signedWith(r.server.received[0]!, { old: r.secret, p1, p2 })).toBe('p2');
  });
});
