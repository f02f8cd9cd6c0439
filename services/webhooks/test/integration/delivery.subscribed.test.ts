import { ListDeliveriesRequest } from '@brand/proto/webhooks/v1';
// A business event published to Kafka reaches the subscribed receiver of its brand, validly signed
// (the example receiver verifies as docs/contract.md#receiver-verification says); receivers not
// subscribed to the type, of other brands, or disabled get nothing. The real delivery is then
// tampered with in every way docs/contract.md#receiver-verification lists, and the receiver refuses
// each.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { verifyDelivery, type ReceivedDelivery } from '@brand/example-receiver';
import { makeBusinessEvent, waitFor } from '@brand/testkit';
import {
  deliveryRows,
  newBrandId,
  receiverState,
  startHarness,
  type Harness,
  type RegisteredReceiver,
} from './harness';

let h: Harness;
const brand = newBrandId();
const otherBrand = newBrandId();
let subscribed: RegisteredReceiver;
let otherType: RegisteredReceiver;
let otherBrandsReceiver: RegisteredReceiver;
let disabled: RegisteredReceiver;
let delivery: ReceivedDelivery;
let event: ReturnType<typeof makeBusinessEvent>;

beforeAll(async () => {
  h = await startHarness({ label: 'subscribed' });
  subscribed = await h.addReceiver({
    brandId: brand,
    events: ['submission.approved', 'payout.paid'],
  });
  otherType = await h.addReceiver({ brandId: brand, events: ['payout.paid'] });
  otherBrandsReceiver = await h.addReceiver({
    brandId: otherBrand,
    events: ['submission.approved'],
  });
  disabled = await h.addReceiver({ brandId: brand, events: ['submission.approved'] });
  await h.client.call('updateReceiver', {
    receiver_id: disabled.receiver.id,
    enabled: false,
    events: [],
  });
  // made now: receivers get only events that happened after they were added
  event = makeBusinessEvent({
    brandId: brand,
    type: 'submission.approved',
    object: {
      resource: 'submissions',
      id: 'sub_abc123',
      status: 'approved',
      creator_handle: '@ana',
    },
  });
  await h.producer.publish([event]);
  await subscribed.server.waitFor((r) => r.length >= 1, 30_000);
  delivery = subscribed.server.received[0]!;
});
afterAll(() => h?.close());

describe('a subscribed receiver', () => {
  it('gets the event once, verified by the example receiver', () => {
    expect(delivery.verdict.ok).toBe(true);
    expect(delivery.outcome).toBe('processed');
    expect(delivery.status).toBe(200);
    expect(subscribed.server.received).toHaveLength(1);
  });

  it('gets the body of docs/contract.md#delivery-body', () => {
    expect(JSON.parse(delivery.rawBody.toString('utf8'))).toEqual({
      id: event.id,
      type: 'submission.approved',
      // stored as timestamptz and rendered RFC 3339 with microseconds, as the envelope asks
      created_at: event.created_at.replace(/\.(\d{3})Z$/, '.$1000Z'),
      test: false,
      brand_id: brand,
      data: {
        object: {
          resource: 'submissions',
          id: 'sub_abc123',
          status: 'approved',
          creator_handle: '@ana',
        },
      },
    });
  });

  it('gets the five headers of docs/contract.md#delivery-request', () => {
    const hd = delivery.headers;
    expect(hd['content-type']).toBe('application/json');
    expect(hd['x-service-event']).toBe('submission.approved');
    expect(hd['x-service-attempt']).toBe('1');
    expect(Math.abs(Number(hd['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(hd['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('shows the success on the receiver and the delivery', async () => {
    // the worker records the outcome right after the receiver answered
    const r = await waitFor(async () => {
      const s = await receiverState(h, brand, subscribed.receiver.id);
      return s.last_status !== 0 ? s : undefined;
    });
    expect(r).toMatchObject({ last_status: 200, failure_count: 0, enabled: true });
    expect(r.last_delivery_at).not.toBe('');
    const { deliveries } = await h.client.call(
      'listDeliveries',
      ListDeliveriesRequest.fromPartial({
        receiver_id: r.id,
        brand_id: '',
        limit: 0,
      }),
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event_id: event.id, attempt_count: 1, last_status: 200 });
  });
});

describe('receivers that must get nothing', () => {
  it('have no delivery queued (deliveries are created with the event, in one transaction)', async () => {
    expect(await deliveryRows(h, subscribed.receiver.id)).toHaveLength(1);
    for (const r of [otherType, otherBrandsReceiver, disabled]) {
      expect(await deliveryRows(h, r.receiver.id)).toEqual([]);
      expect(r.server.received).toEqual([]);
    }
  });

  it('get their own subscribed events, so the silence above is not a broken pipeline', async () => {
    await h.producer.publish([
      makeBusinessEvent({
        brandId: brand,
        type: 'payout.paid',
        object: { resource: 'payouts', id: 'po_1', status: 'paid' },
      }),
      makeBusinessEvent({ brandId: otherBrand, type: 'submission.approved' }),
    ]);
    await otherType.server.waitFor((r) => r.length === 1, 30_000);
    await otherBrandsReceiver.server.waitFor((r) => r.length === 1, 30_000);
    await subscribed.server.waitFor((r) => r.length === 2, 30_000);
    expect(disabled.server.received).toEqual([]);
    expect(otherType.server.received[0]!.event?.type).toBe('payout.paid');
  });
});

describe('the example receiver, given the real delivery', () => {
  const verify = (o: {
    secret?: string;
    headers?: Record<string, string | undefined>;
    rawBody?: Buffer;
    now?: Date;
    types?: string[];
  }) =>
    verifyDelivery({
      secret: o.secret ?? subscribed.secret,
      headers: o.headers ?? delivery.headers,
      rawBody: o.rawBody ?? delivery.rawBody,
      now: o.now,
      acceptedTypes: o.types ?? ['submission.approved'],
    });
  const ts = (): number => Number(delivery.headers['x-service-timestamp']);
  const headersWith = (name: string, value: string | undefined) => ({
    ...(delivery.headers as Record<string, string>),
    [name]: value,
  });

  it('accepts it as delivered', async () => {
    expect((await verify({})).ok).toBe(true);
    expect((await verify({ now: new Date((ts() + 300) * 1000) })).ok).toBe(true);
  });

  it.each([
    ['a wrong secret', () => verify({ secret: 'whsec_wrong' }), 'signature_mismatch'],
    ['another receiver’s secret', () => verify({ secret: otherType.secret }), 'signature_mismatch'],
    [
      'a changed body',
      () =>
        verify({
          rawBody: Buffer.from(delivery.rawBody.toString().replace('sub_abc123', 'sub_abc124')),
        }),
      'signature_mismatch',
    ],
    [
      'a timestamp 301 s old',
      () => verify({ now: new Date((ts() + 301) * 1000) }),
      'timestamp_too_old',
    ],
    [
      'a timestamp 301 s ahead',
      () => verify({ now: new Date((ts() - 301) * 1000) }),
      'timestamp_in_future',
    ],
    [
      'a missing signature',
      () => verify({ headers: headersWith('x-service-signature', undefined) }),
      'missing_header',
    ],
    [
      'a missing timestamp',
      () => verify({ headers: headersWith('x-service-timestamp', undefined) }),
      'missing_header',
    ],
    [
      'a malformed signature',
      () => verify({ headers: headersWith('x-service-signature', 'sha1=abc') }),
      'malformed_header',
    ],
    [
      'a malformed timestamp',
      () => verify({ headers: headersWith('x-service-timestamp', 'yesterday') }),
      'malformed_header',
    ],
    ['an unselected type', () => verify({ types: ['payout.paid'] }), 'unexpected_event_type'],
  ])('refuses %s', async (_case, run, reason) => {
    expect(await run()).toMatchObject({ ok: false, reason });
  });

  it('answers a replayed, tampered delivery over HTTPS with 401', async () => {
    const body = Buffer.from(delivery.rawBody.toString().replace('sub_abc123', 'sub_zzz999'));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${subscribed.server.url}/hooks`,
        {
          method: 'POST',
          ca: readFileSync(h.ca.caFile),
          headers: { ...delivery.headers, 'content-length': body.length },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(401);
  });
});
