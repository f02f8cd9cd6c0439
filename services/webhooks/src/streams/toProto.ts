import type { AuditBatch, AuditStream } from '@brand/proto/webhooks/v1/audit';
import { deliveryState, toAttempt } from '../admin/toProto';
import type { StreamDeliveryRow } from './streamDeliveries';
import type { StreamRow } from './streamRepo';

/** A stream as AuditStreamService returns it: never its token, API key or secret. */
export const toStream = (s: StreamRow): AuditStream => ({
  id: s.id,
  brand_id: s.brand_id,
  kind: s.kind,
  label: s.label,
  url: s.url,
  datadog_site: s.options.datadog_site ?? '',
  splunk_index: s.options.splunk_index ?? '',
  enabled: s.enabled,
  disabled_reason: s.disabled_reason ?? '',
  disabled_by_service: s.disabled_by_service,
  created_at: s.created_at,
  created_by: s.created_by,
  last_status: s.last_status ?? 0,
  last_delivery_at: s.last_delivery_at ?? '',
  failure_count: s.failure_count,
  failing_since: s.failing_since ?? '',
  last_error: s.last_error ?? '',
  delivered_through: s.delivered_through,
  head: s.head,
  oldest_waiting_at: s.oldest_waiting_at ?? '',
  started_after: s.started_after,
  set_aside: s.set_aside,
  updated_at: s.updated_at,
});

/** A stream's delivery: the positions it carries (0 and 0 for a test) and its attempts. */
export function toBatch(d: StreamDeliveryRow): AuditBatch {
  const range = d.test
    ? undefined
    : (JSON.parse(d.object_json) as { from: number; through: number });
  return {
    id: d.id,
    first_position: range?.from ?? 0,
    last_position: range?.through ?? 0,
    ...deliveryState(d),
    attempts: d.attempt_log.map((a) => toAttempt(a, undefined)),
  };
}
