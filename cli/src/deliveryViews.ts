import type { Attempt, Delivery, Header } from '@brand/proto/webhooks/v1';
import { formatFields, formatTable, indent, shortTime, yesNo } from './output';
import { eventName, orNull, statusOrNull, statusWord, terminalSafe } from './viewWords';

const headersJson = (headers: Header[]) => headers.map((h) => ({ name: h.name, value: h.value }));

/** One attempt as JSON; its detail (what was sent and came back) only while it is kept. */
const attemptJson = (a: Attempt) => ({
  number: a.number,
  started_at: a.started_at,
  duration_ms: a.duration_ms,
  status_code: statusOrNull(a.status_code),
  error_class: orNull(a.error_class),
  error_message: orNull(a.error_message),
  excerpt: orNull(a.excerpt),
  ...(a.detail
    ? {
        detail: {
          request_headers: headersJson(a.detail.request_headers),
          response_headers: headersJson(a.detail.response_headers),
          response_body: a.detail.response_body,
          response_body_truncated: a.detail.response_body_truncated,
          response_body_bytes:
            a.detail.response_body_bytes === -1 ? null : a.detail.response_body_bytes,
        },
      }
    : {}),
});

export const deliveryJson = (d: Delivery) => ({
  id: d.id,
  event_id: d.event_id,
  receiver_id: d.receiver_id,
  brand_id: d.brand_id,
  event_type: eventName(d.event_type),
  test: d.test,
  signed_with_new_secret: d.signed_with_new_secret,
  status: statusWord(d.status),
  attempt_count: d.attempt_count,
  next_attempt_at: orNull(d.next_attempt_at),
  last_status: statusOrNull(d.last_status),
  last_error: orNull(d.last_error),
  created_at: d.created_at,
  completed_at: orNull(d.completed_at),
  attempts: d.attempts.map(attemptJson),
  ...(d.payload ? { payload: d.payload } : {}),
});

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
    [
      'event',
      `${d.event_id} (${eventName(d.event_type)}${d.test ? ', test' : ''}` +
        `${d.signed_with_new_secret ? ', signed with the new secret' : ''})`,
    ],
    ['receiver', d.receiver_id],
    ['status', statusWord(d.status)],
    ['attempts', String(d.attempt_count)],
    ['next attempt', shortTime(d.next_attempt_at)],
  ]);
}

const headerLines = (headers: Header[]): string =>
  headers.length === 0
    ? '(none)'
    : headers.map((h) => `${h.name}: ${terminalSafe(h.value)}`).join('\n');

function bodyText(a: Attempt): string {
  const d = a.detail!;
  if (d.response_body === '') return '(empty)';
  const size = d.response_body_bytes === -1 ? 'size unknown' : `${d.response_body_bytes} bytes`;
  const cut = d.response_body_truncated ? `\n… (first 4 KB of ${size})` : '';
  return `${terminalSafe(d.response_body)}${cut}`;
}

/** One attempt for people: outcome in words, then (while kept) what was sent and came back. */
function attemptBlock(a: Attempt): string {
  const outcome =
    a.error_message || (a.status_code === 0 ? a.error_class : `${a.status_code} from the receiver`);
  const head = `Attempt ${a.number}  ${shortTime(a.started_at)}  ${a.duration_ms} ms  ${outcome || 'accepted'}`;
  // detail is kept for a while after the EVENT (ATTEMPT_DETAIL_RETENTION_MS), not the attempt:
  // a fresh attempt of an old event (a resend) has none either, so "no longer" would mislead
  if (!a.detail)
    return `${head}\n${indent('(detail not kept: it is kept for a limited time after the event)')}`;
  return [
    head,
    indent(`Request headers:\n${indent(headerLines(a.detail.request_headers))}`),
    indent(`Response headers:\n${indent(headerLines(a.detail.response_headers))}`),
    indent(`Response body:\n${indent(bodyText(a))}`),
  ].join('\n');
}

/** One delivery in full: its fields, every attempt with its detail, and the event sent. */
export function deliveryDetail(d: Delivery): string {
  const blocks = [deliveryFields(d)];
  if (d.last_error) blocks.push(`Last error: ${d.last_error}`);
  blocks.push(...d.attempts.map(attemptBlock));
  if (d.payload) blocks.push(`Event sent (the same bytes on every attempt):\n${indent(d.payload)}`);
  return blocks.join('\n\n');
}
