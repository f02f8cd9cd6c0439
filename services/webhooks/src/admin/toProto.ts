import { DeliveryStatus, type Delivery, type Receiver } from '@brand/proto/webhooks/v1';
import { EVENT_TYPES } from '@brand/shared/enums';
import type { DeliveryView } from '../deliveries/deliveryService';
import type { ReceiverRow } from '../receivers/receiverRepo';

/** A stored receiver as the WebhooksService returns it (no secret: it is shown once, on add). */
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
});

const STATUS = {
  pending: DeliveryStatus.DELIVERY_STATUS_PENDING,
  succeeded: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  failed: DeliveryStatus.DELIVERY_STATUS_FAILED,
} as const;

/** A delivery with its attempt log as the WebhooksService returns it. */
export const toDelivery = (d: DeliveryView): Delivery => ({
  id: d.id,
  event_id: d.event_id,
  receiver_id: d.receiver_id,
  brand_id: d.brand_id,
  event_type: EVENT_TYPES.isName(d.event_type) ? EVENT_TYPES.toProto(d.event_type) : 0,
  test: d.test,
  status: STATUS[d.status],
  attempt_count: d.attempts,
  next_attempt_at: d.next_attempt_at ?? '',
  last_status: d.last_status ?? 0,
  last_error: d.last_error ?? '',
  created_at: d.created_at,
  completed_at: d.completed_at ?? '',
  attempts: d.attempt_log.map((a) => ({
    number: a.number,
    started_at: a.started_at,
    duration_ms: a.duration_ms,
    status_code: a.status_code ?? 0,
    error_class: a.error_class ?? '',
    excerpt: a.excerpt ?? '',
  })),
});
