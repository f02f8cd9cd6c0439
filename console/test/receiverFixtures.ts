import { EventType } from '@brand/proto/events/v1';
import {
  DeliveryStatus,
  type Attempt,
  type Delivery,
  type HealthWindow,
  type Receiver,
} from '@brand/proto/webhooks/v1';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Viewer } from '../src/views/layout';

/** Fixtures for the unit tests of the receiver views: messages as the webhooks service sends them. */
export const viewer = (over: Partial<Viewer> = {}): Viewer => ({
  email: 'owner@brand.test',
  role: 'owner',
  brandId: 'br_demo',
  brandName: 'Demo Brand',
  csrfToken: 'csrf-token',
  ...over,
});

export const receiver = (over: Partial<Receiver> = {}): Receiver => ({
  id: 'rcv_orders',
  brand_id: 'br_demo',
  url: 'https://hooks.brand.test/orders',
  label: 'Order system',
  events: [EventType.EVENT_TYPE_PAYOUT_PAID],
  enabled: true,
  disabled_reason: '',
  last_status: 204,
  last_delivery_at: '2026-11-23T10:00:00.000Z',
  failure_count: 0,
  created_at: '2026-11-01T09:00:00.000Z',
  created_by: 'owner@brand.test',
  rotation: undefined,
  failing_since: '',
  last_error: '',
  disabled_by_service: false,
  disabled_at: '',
  waiting: 0,
  oldest_waiting_at: '',
  updated_at: '',
  ...over,
});

export const attempt = (over: Partial<Attempt> = {}): Attempt => ({
  number: 1,
  started_at: '2026-11-23T10:00:07.250Z',
  duration_ms: 42,
  status_code: 204,
  error_class: '',
  excerpt: '',
  error_message: '',
  detail: undefined,
  ...over,
});

export const delivery = (over: Partial<Delivery> = {}): Delivery => ({
  id: 'dlv_one',
  receiver_id: 'rcv_orders',
  brand_id: 'br_demo',
  event_id: 'evt_one',
  event_type: EventType.EVENT_TYPE_PAYOUT_PAID,
  test: false,
  status: DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  attempt_count: 1,
  attempts_in_round: 1,
  next_attempt_at: '',
  last_status: 204,
  last_error: '',
  created_at: '2026-11-23T10:00:07.000Z',
  completed_at: '2026-11-23T10:00:07.300Z',
  attempts: [attempt()],
  payload: '',
  signed_with_new_secret: false,
  ...over,
});

export const healthWindow = (over: Partial<HealthWindow> = {}): HealthWindow => ({
  window: '24h',
  attempts: 0,
  succeeded: 0,
  failures: [],
  p50_ms: 0,
  p95_ms: 0,
  buckets: [],
  bucket_seconds: 3600,
  ...over,
});

/** The HTML the console would send for a component. */
export const html = (node: VNode | null): string => (node ? renderToString(node) : '');
