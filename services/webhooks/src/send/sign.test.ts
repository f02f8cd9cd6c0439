import { createHmac } from 'node:crypto';
import { verifyDelivery } from '@brand/example-receiver';
import { canonicalObjectJson, deliveryBody, signature, signedHeaders } from './sign';

const event = {
  id: 'evt_abc',
  type: 'payout.paid' as const,
  createdAt: '2026-11-22T10:00:00.123456Z',
  test: false,
  brandId: 'br_1',
  objectJson: '{"resource":"payouts","id":"po_1","status":"paid","amount":150000}',
};

describe('deliveryBody', () => {
  it('has exactly the body fields, data.object being the record', () => {
    expect(JSON.parse(deliveryBody(event))).toEqual({
      id: 'evt_abc',
      type: 'payout.paid',
      created_at: '2026-11-22T10:00:00.123456Z',
      test: false,
      brand_id: 'br_1',
      data: { object: { resource: 'payouts', id: 'po_1', status: 'paid', amount: 150000 } },
    });
    expect(Object.keys(JSON.parse(deliveryBody(event)) as object)).toEqual([
      'id',
      'type',
      'created_at',
      'test',
      'brand_id',
      'data',
    ]);
  });

  it('is the same bytes on every attempt', () => {
    expect(deliveryBody(event)).toBe(deliveryBody({ ...event }));
  });

  it('is byte for byte JSON.stringify of the body, for objects in their canonical form', () => {
    const objects = [
      { resource: 'payouts', id: 'po_1', status: 'paid', amount: 150000, note: null },
      {
        resource: 'submissions',
        id: 'sub_1',
        creator_handle: 'ñandú "q" \\ \u2028 😀',
        views: 1e21,
      },
      { resource: 'campaigns', id: 'cmp_1', platforms: ['tiktok', 'x'], budget: -0.5, 10: 'n' },
      { '': '', '\u0000': '\u001f' },
    ];
    for (const object of objects) {
      for (const test of [false, true]) {
        const e = { ...event, test, id: 'evt_"\\', objectJson: canonicalObjectJson(object) };
        expect(deliveryBody(e)).toBe(
          JSON.stringify({
            id: e.id,
            type: e.type,
            created_at: e.createdAt,
            test,
            brand_id: e.brandId,
            data: { object },
          }),
        );
      }
    }
  });
});

describe('signedHeaders', () => {
  it('signs "<timestamp>.<raw body>" with HMAC-SHA256, as the example receiver verifies', async () => {
    const body = deliveryBody(event);
    const now = new Date('2026-11-22T10:00:05Z');
    const headers = signedHeaders({
      secret: 'whsec_x',
      type: 'payout.paid',
      body,
      attempt: 3,
      now,
    });
    expect(headers).toEqual({
      'content-type': 'application/json',
      'x-service-event': 'payout.paid',
      'x-service-timestamp': '1795341605',
      'x-service-signature': `sha256=${createHmac('sha256', 'whsec_x').update(`1795341605.${body}`).digest('hex')}`,
      'x-service-attempt': '3',
    });
    expect(
      await verifyDelivery({
        secret: 'whsec_x',
        headers,
        rawBody: body,
        now,
        acceptedTypes: ['payout.paid'],
      }),
    ).toMatchObject({ ok: true, attempt: 3 });
  });

  it('is re-signed per timestamp', () => {
    expect(signature('s', 1, 'b')).not.toBe(signature('s', 2, 'b'));
  });
});
