import { DeliveryStatus, type Delivery, type Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { formatFields, formatTable, shortTime, yesNo } from './output';

/** JSON shapes of receivers and deliveries: event types and statuses as words. */
const eventName = (value: number): string => EVENT_TYPES.fromProto(value) ?? 'unspecified';

const STATUS_WORDS: Record<number, string> = {
  [DeliveryStatus.DELIVERY_STATUS_PENDING]: 'pending',
  [DeliveryStatus.DELIVERY_STATUS_SUCCEEDED]: 'succeeded',
  [DeliveryStatus.DELIVERY_STATUS_FAILED]: 'failed',
};
const statusWord = (value: number): string => STATUS_WORDS[value] ?? 'unspecified';
const orNull = (v: string): string | null => (v === '' ? null : v);
const statusOrNull = (v: number): number | null => (v === 0 ? null : v);

/** A receiver as JSON: never the secret (the proto message has no field for it). */
export const receiverJson = (r: Receiver) => ({
  id: r.id,
  brand_id: r.brand_id,
  url: r.url,
  label: r.label,
  events: r.events.map(eventName),
  enabled: r.enabled,
  disabled_reason: orNull(r.disabled_reason),
  last_status: statusOrNull(r.last_status),
  last_delivery_at: orNull(r.last_delivery_at),
  failure_count: r.failure_count,
  created_at: r.created_at,
  created_by: r.created_by,
});

export const deliveryJson = (d: Delivery) => ({
  id: d.id,
  event_id: d.event_id,
  receiver_id: d.receiver_id,
  brand_id: d.brand_id,
  event_type: eventName(d.event_type),
  test: d.test,
  status: statusWord(d.status),
  attempt_count: d.attempt_count,
  next_attempt_at: orNull(d.next_attempt_at),
  last_status: statusOrNull(d.last_status),
  last_error: orNull(d.last_error),
  created_at: d.created_at,
  completed_at: orNull(d.completed_at),
  attempts: d.attempts.map((a) => ({
    number: a.number,
    started_at: a.started_at,
    duration_ms: a.duration_ms,
    status_code: statusOrNull(a.status_code),
    error_class: orNull(a.error_class),
    excerpt: orNull(a.excerpt),
  })),
});

const lastText = (status: number, at: string): string =>
  at === '' ? 'never' : `${status === 0 ? 'no response' : status} at ${shortTime(at)}`;

export function receiverFields(r: Receiver): string {
  const fields: Array<[string, string]> = [
    ['id', r.id],
    ['brand', r.brand_id],
    ['url', r.url],
    ['label', r.label],
    ['events', r.events.map(eventName).join(', ')],
    ['enabled', r.enabled ? 'yes' : `no (${r.disabled_reason || 'disabled'})`],
    ['last delivery', lastText(r.last_status, r.last_delivery_at)],
    ['failures', String(r.failure_count)],
    ['created', `${shortTime(r.created_at)} by ${r.created_by}`],
  ];
  return formatFields(fields);
}

export function receiverTable(receivers: Receiver[]): string {
  return formatTable(
    ['ID', 'LABEL', 'URL', 'EVENTS', 'ENABLED', 'LAST STATUS', 'LAST DELIVERY', 'FAILURES'],
    receivers.map((r) => [
      r.id,
      r.label,
      r.url,
      r.events.map(eventName).join(','),
      yesNo(r.enabled),
      r.last_status === 0 ? '-' : String(r.last_status),
      shortTime(r.last_delivery_at),
      String(r.failure_count),
    ]),
  );
}

export function deliveryTable(deliveries: Delivery[]): string {
  return formatTable(
    [
      'ID',
      'EVENT',
      'TYPE',
      'TEST',
      'STATUS',
      'ATTEMPTS',
      'LAST STATUS',
      'NEXT ATTEMPT',
      'LAST ERROR',
    ],
    deliveries.map((d) => [
      d.id,
      d.event_id,
      eventName(d.event_type),
      yesNo(d.test),
      statusWord(d.status),
      String(d.attempt_count),
      d.last_status === 0 ? '-' : String(d.last_status),
      shortTime(d.next_attempt_at),
      d.last_error || '-',
    ]),
  );
}

export function deliveryFields(d: Delivery): string {
  return formatFields([
    ['id', d.id],
    ['event', `${d.event_id} (${eventName(d.event_type)}${d.test ? ', test' : ''})`],
    ['receiver', d.receiver_id],
    ['status', statusWord(d.status)],
    ['attempts', String(d.attempt_count)],
    ['next attempt', shortTime(d.next_attempt_at)],
  ]);
}

/** The one and only display of a signing secret, with the same warning as key secrets. */
export function signingSecretBlock(secret: string): string {
  return [
    'Signing secret (shown once):',
    '',
    `    ${secret}`,
    '',
    'Copy it now: it will not be shown again. Keep it on the receiving server (an environment\n' +
      'variable or a secret store), never in browser code, repositories, screenshots or support\n' +
      'messages. Verify every delivery with it: see examples/receiver.',
  ].join('\n');
}
