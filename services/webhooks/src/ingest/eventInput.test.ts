import type { KafkaMessage } from 'kafkajs';
import { BusinessEvent, EventType } from '@brand/proto/events/v1';
import { encodeBusinessEvent } from '@brand/shared/kafka';
import { toEventInput } from './eventInput';

const message = (value: Buffer | null): KafkaMessage => ({
  key: null,
  value,
  offset: '0',
  timestamp: '0',
  attributes: 0,
  headers: {},
});

const event = (overrides: Partial<BusinessEvent> = {}): Buffer =>
  encodeBusinessEvent(
    BusinessEvent.fromPartial({
      id: 'evt_abc',
      type: EventType.EVENT_TYPE_PAYOUT_PAID,
      brand_id: 'br_1',
      created_at: '2026-11-22T10:00:00.123456Z',
      object_json: '{"resource":"payouts","id":"po_1","status":"paid"}',
      producer: 'records',
      ...overrides,
    }),
  );

describe('toEventInput', () => {
  it('reads a well-formed event', () => {
    expect(toEventInput(message(event()))).toEqual({
      id: 'evt_abc',
      brandId: 'br_1',
      type: 'payout.paid',
      createdAt: '2026-11-22T10:00:00.123456Z',
      objectJson: '{"resource":"payouts","id":"po_1","status":"paid"}',
      test: false,
      producer: 'records',
    });
  });

  it('keeps an escaped backslash before u0000, which is no NUL', () => {
    const object_json = '{"resource":"payouts","id":"po_1","note":"\\\\u0000"}';
    expect(toEventInput(message(event({ object_json })))).toMatchObject({ id: 'evt_abc' });
  });

  it('stores the object in JSON.stringify form, whatever spacing or escapes the producer used', () => {
    const spaced = '{ "resource" : "payouts", "id":"po_\\u0031", "amount": 1.50E2 }';
    expect(toEventInput(message(event({ object_json: spaced })))).toMatchObject({
      objectJson: '{"resource":"payouts","id":"po_1","amount":150}',
    });
  });

  it.each([
    ['an empty value', message(null), /undecodable/],
    ['bytes that are not protobuf', message(Buffer.from([0x0a, 0xff, 0xff])), /undecodable/],
    ['no event id', message(event({ id: '' })), /undecodable/],
    ['an unknown event type', message(event({ type: 99 as EventType })), /unknown event type/],
    ['UNSPECIFIED', message(event({ type: EventType.EVENT_TYPE_UNSPECIFIED })), /unknown/],
    ['a bad created_at', message(event({ created_at: 'yesterday' })), /created_at/],
    ['object_json not JSON', message(event({ object_json: '{' })), /not JSON/],
    ['object_json an array', message(event({ object_json: '[1]' })), /not a JSON object/],
    // values PostgreSQL refuses: before, each failed its chunk on every replay, holding the partition
    ['30 February', message(event({ created_at: '2026-02-30T10:00:00Z' })), /created_at/],
    ['a bare number as created_at', message(event({ created_at: '1' })), /created_at/],
    ['a NUL in the brand', message(event({ brand_id: 'br_\u0000' })), /brand_id/],
    ['a NUL in the producer', message(event({ producer: 'records\u0000' })), /producer/],
    [
      'a NUL in object_json',
      message(event({ object_json: '{"resource":"payouts","id":"po_\\u0000"}' })),
      /NUL/,
    ],
    // receivers deduplicate by the event's and the record's ids: without them, not delivered
    ['an event id of two lines', message(event({ id: 'evt_a\nb' })), /undecodable/],
    [
      'an object without an id',
      message(event({ object_json: '{"resource":"payouts","status":"paid"}' })),
      /no record id/,
    ],
    [
      'an object whose id is a number',
      message(event({ object_json: '{"resource":"payouts","id":7}' })),
      /no record id/,
    ],
    [
      'an object without a resource',
      message(event({ object_json: '{"id":"po_1","status":"paid"}' })),
      /no record id and resource/,
    ],
    // a deep nest overflowed the NUL check's recursion: the consumer crashed on it, rejoined and
    // crashed again, holding the partition (a hostile review, 2026-11-30)
    [
      'an object nested 5,000 deep',
      message(event({ object_json: nested(5_000) })),
      /nests deeper than 32/,
    ],
    ['an object nested 33 deep', message(event({ object_json: nested(33) })), /nests deeper/],
  ])('skips %s', (_name, m, reason) => {
    const result = toEventInput(m);
    expect(result).toHaveProperty('skip');
    expect((result as { skip: string }).skip).toMatch(reason);
  });

  it('reads an object nested 32 deep, and finds a NUL at its bottom', () => {
    expect(toEventInput(message(event({ object_json: nested(32) })))).toMatchObject({
      id: 'evt_abc',
    });
    expect(toEventInput(message(event({ object_json: nested(32, '"a\\u0000"') })))).toEqual({
      skip: 'object_json holds a NUL character',
      reason: 'invalid_object_json',
    });
  });
});

/** A record holding objects within objects, `depth` in all (the record one of them). */
function nested(depth: number, bottom = '"bottom"'): string {
  const inner = `${'{"a":'.repeat(depth - 1)}${bottom}${'}'.repeat(depth - 1)}`;
  return `{"resource":"payouts","id":"po_1","a":${inner}}`;
}
