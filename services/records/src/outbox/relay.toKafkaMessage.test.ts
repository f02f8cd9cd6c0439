import { EventType } from '@brand/proto/events/v1';
import { BUSINESS_EVENT_CONTENT_TYPE, decodeBusinessEvent } from '@brand/shared/kafka';
import { toKafkaMessage } from './relay';

describe('toKafkaMessage', () => {
  it('keys by brand and carries the envelope of events.proto', () => {
    const payload = '{"resource":"payouts","id":"po_1","status":"paid"}';
    const message = toKafkaMessage({
      id: 'evt_0123456789abcdefghij',
      brand_id: 'br_abc',
      type: 'payout.paid',
      payload,
      created_at: '2026-01-02T03:04:05.123456Z',
    });
    expect(message.key).toBe('br_abc');
    expect(message.headers).toEqual({ 'content-type': BUSINESS_EVENT_CONTENT_TYPE });
    expect(decodeBusinessEvent(message.value as Buffer)).toEqual({
      id: 'evt_0123456789abcdefghij',
      type: EventType.EVENT_TYPE_PAYOUT_PAID,
      brand_id: 'br_abc',
      created_at: '2026-01-02T03:04:05.123456Z',
      object_json: payload,
      producer: 'records',
    });
  });
});
