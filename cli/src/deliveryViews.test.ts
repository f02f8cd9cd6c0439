import { DeliveryStatus, type Delivery } from '@brand/proto/webhooks/v1';
import { deliveryDetail, deliveryJson } from './deliveryViews';
import { healthText } from './healthViews';
import { terminalSafe } from './viewWords';

const delivery: Delivery = {
  id: 'dlv_1',
  event_id: 'evt_1',
  receiver_id: 'rcv_1',
  brand_id: 'br_1',
  event_type: 3,
  test: false,
  status: DeliveryStatus.DELIVERY_STATUS_PENDING,
  attempt_count: 2,
  attempts_in_round: 2,
  next_attempt_at: '2026-11-20T14:05:00.000000Z',
  last_status: 400,
  last_error: '400 from the receiver',
  created_at: '2026-11-20T14:00:00.000000Z',
  completed_at: '',
  attempts: [
    {
      number: 1,
      started_at: '2026-11-20T14:00:00.123456Z',
      duration_ms: 12,
      status_code: 0,
      error_class: 'connection_error',
      excerpt: '',
      error_message: 'connection refused by 203.0.113.7:443',
      detail: undefined,
    },
    {
      number: 2,
      started_at: '2026-11-20T14:00:05.123456Z',
      duration_ms: 80,
      status_code: 400,
      error_class: 'http_status',
      excerpt: 'bad',
      error_message: '400 from the receiver',
      detail: {
        request_headers: [{ name: 'x-service-signature', value: 'sha256=0123abcd…' }],
        response_headers: [{ name: 'content-type', value: 'text/html' }],
        response_body: '<h1>bad</h1>\u001b[2J',
        response_body_truncated: true,
        response_body_bytes: 52_428_800,
      },
    },
  ],
  payload: '{"id":"evt_1"}',
  signed_with_new_secret: false,
};

describe('deliveryDetail', () => {
  const text = deliveryDetail(delivery);

  it('shows each attempt in words, to the second', () => {
    expect(text).toMatch(
      /Attempt 1 {2}2026-11-20 14:00:00Z {2}12 ms {2}connection refused by 203\.0\.113\.7:443/,
    );
    expect(text).toMatch(
      /Attempt 1 .*\n {2}\(detail not kept: it is kept for a limited time after the event\)/,
    );
  });

  it('shows what was sent and what came back, as text a terminal cannot act on', () => {
    expect(text).toContain('x-service-signature: sha256=0123abcd…');
    expect(text).toContain('content-type: text/html');
    expect(text).toContain('<h1>bad</h1>\\x1b[2J');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('… (first 4 KB of 52428800 bytes)');
    expect(text).toMatch(/Event sent \(the same bytes on every attempt\):\n {2}\{"id":"evt_1"\}/);
  });
});

describe('deliveryJson', () => {
  it('carries the detail and payload when present, without an unknown size', () => {
    const json = deliveryJson({
      ...delivery,
      attempts: [
        {
          ...delivery.attempts[1]!,
          detail: { ...delivery.attempts[1]!.detail!, response_body_bytes: -1 },
        },
      ],
    });
    expect(json.payload).toBe('{"id":"evt_1"}');
    expect(json.attempts[0]).toMatchObject({
      error_message: '400 from the receiver',
      detail: { response_body_truncated: true, response_body_bytes: null },
    });
    expect(deliveryJson({ ...delivery, payload: '' })).not.toHaveProperty('payload');
  });
});

describe('terminalSafe', () => {
  it('keeps newlines and tabs and escapes other control characters', () => {
    expect(terminalSafe('a\n\tb\u0007\u009b')).toBe('a\n\tb\\x07\\x9b');
  });
});

describe('healthText', () => {
  it('puts the failing state above the windows', () => {
    const text = healthText(
      {
        id: 'rcv_1',
        enabled: true,
        failing_since: '2026-11-20T14:00:00.000000Z',
        last_error: '503 from the receiver',
        disabled_by_service: false,
        disabled_reason: '',
      } as never,
      [
        {
          window: '1h',
          attempts: 40,
          succeeded: 39,
          failures: [{ class: 'http_5xx', count: 1 }],
          p50_ms: 42,
          p95_ms: 120,
          buckets: [],
          bucket_seconds: 300,
        },
      ],
    );
    expect(text).toMatch(/^Failing since 2026-11-20 14:00:00Z: 503 from the receiver/);
    expect(text).toMatch(/1h +40 +97\.5% +42 ms +120 ms +http_5xx 1/);
  });
});
