import {
  DeliveryStatus,
  ReceiverNoticeKind,
  type Attempt,
  type Delivery,
  type HealthWindow,
  type Receiver,
  type ReceiverNotice,
  type SecretRotation,
} from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import type { AttemptDetailRow, AttemptRow } from '../log/deliveryRepo';
import type { DeliveryView } from '../log/deliveryService';
import type { HealthWindowView } from '../health/healthWindows';
import type { NoticeRow } from '../notices/noticeRepo';
import type { ReceiverRow, RotationView } from '../receivers/receiverRepo';

/** Delivery states as the proto names them (deliveries and audit streams' runs alike). */
export const STATUS = {
  pending: DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
} as const;

/**
 * The state a ListDeliveries request filters on; undefined for UNSPECIFIED (all states), and
 * validation_failed for a value this service does not know.
 */
export function deliveryStatusName(s: DeliveryStatus): keyof typeof STATUS | undefined {
  if (s === DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED) return undefined;
  const name = (Object.keys(STATUS) as Array<keyof typeof STATUS>).find((k) => STATUS[k] === s);
  if (!name)
    throw new AppError('validation_failed', 'status: must be pending, succeeded or failed');
  return name;
}

const toRotation = (r: RotationView): SecretRotation => ({
  created_at: r.created_at,
  switch_at: r.switch_at ?? '',
  created_by: r.created_by,
  test_delivery_id: r.test_delivery_id ?? '',
  test_status: r.test ? STATUS[r.test.status] : DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED,
  test_last_status: r.test?.last_status ?? 0,
  test_last_error: r.test?.last_error ?? '',
});

/** A stored receiver as the WebhooksService returns it (no secret: it is shown once). */
export const toReceiver = (r: ReceiverRow): Receiver => ({
  id: r.id,
  brand_id: r.brand_id,
  url: r.url,
  label: r.label,
  events: r.events.map((e) => EVENT_TYPES.toProto(e)),
  enabled: r.enabled,
  disabled_reason: r.disabled_reason ?? '',
  last_status: r.last_status ?? 0,
  last_delivery_at: r.last_delivery_at ?? '',
  failure_count: r.failure_count,
  created_at: r.created_at,
  created_by: r.created_by,
  rotation: r.rotation ? toRotation(r.rotation) : undefined,
  failing_since: r.failing_since ?? '',
  last_error: r.failing_since ? (r.last_error ?? '') : '',
  disabled_by_service: !r.enabled && r.disabled_by_service,
  disabled_at: r.enabled ? '' : (r.disabled_at ?? ''),
  waiting: r.waiting,
  oldest_waiting_at: r.oldest_waiting_at ?? '',
  updated_at: r.updated_at,
});

export function toAttempt(a: AttemptRow, detail: AttemptDetailRow | undefined): Attempt {
  return {
    number: a.number,
    started_at: a.started_at,
    duration_ms: a.duration_ms,
    status_code: a.status_code ?? 0,
    error_class: a.error_class ?? '',
    excerpt: a.excerpt ?? '',
    error_message: a.error_message ?? '',
    detail: detail && {
      request_headers: detail.request_headers,
      response_headers: detail.response_headers,
      response_body: detail.response_body,
      response_body_truncated: detail.response_body_truncated,
      response_body_bytes: Number(detail.response_body_bytes),
    },
  };
}

/** Where a delivery stands: the fields a webhook delivery and an audit stream's batch share. */
export const deliveryState = (
  d: Pick<
    DeliveryView,
    | 'test'
    | 'status'
    | 'attempts'
    | 'next_attempt_at'
    | 'last_status'
    | 'last_error'
    | 'created_at'
    | 'completed_at'
    | 'attempts_in_round'
  >,
) => ({
  test: d.test,
  status: STATUS[d.status],
  attempt_count: d.attempts,
  next_attempt_at: d.next_attempt_at ?? '',
  last_status: d.last_status ?? 0,
  last_error: d.last_error ?? '',
  created_at: d.created_at,
  completed_at: d.completed_at ?? '',
  attempts_in_round: d.attempts_in_round,
});

/**
 * A delivery with its attempt log as the WebhooksService returns it; the attempts' detail
 * and the payload only when loaded (GetDelivery and the calls answering one delivery).
 */
export const toDelivery = (d: DeliveryView): Delivery => ({
  id: d.id,
  event_id: d.event_id,
  receiver_id: d.receiver_id,
  brand_id: d.brand_id,
  event_type: EVENT_TYPES.isName(d.event_type) ? EVENT_TYPES.toProto(d.event_type) : 0,
  ...deliveryState(d),
  attempts: d.attempt_log.map((a) =>
    toAttempt(
      a,
      d.details?.find((x) => x.number === a.number),
    ),
  ),
  payload: d.payload ?? '',
  signed_with_new_secret: d.signed_with_new_secret,
});

export const toHealthWindow = (w: HealthWindowView): HealthWindow => ({
  window: w.window,
  attempts: w.attempts,
  succeeded: w.succeeded,
  failures: w.failures,
  p50_ms: w.p50Ms,
  p95_ms: w.p95Ms,
  buckets: w.buckets,
  bucket_seconds: w.bucketSeconds,
});

const NOTICE_KIND = {
  failing: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_FAILING,
  recovered: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_RECOVERED,
  disabled: ReceiverNoticeKind.RECEIVER_NOTICE_KIND_DISABLED,
} as const;

export const toNotice = (n: NoticeRow): ReceiverNotice => ({
  id: n.id,
  brand_id: n.brand_id,
  receiver_id: n.receiver_id,
  receiver_label: n.receiver_label,
  receiver_url: n.receiver_url,
  disabled_at: n.disabled_at ?? '',
  failing_since: n.failing_since ?? '',
  reason: n.reason,
  last_error: n.last_error,
  kind: NOTICE_KIND[n.kind],
  failures: n.failures,
  created_at: n.created_at,
});
