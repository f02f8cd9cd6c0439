import {
  isWebhookEventType,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '@brand-records/client/webhooks';

/** The four event types a delivery can carry (docs/contract.md#event-types), from the client package. */
export const EVENT_TYPES = WEBHOOK_EVENT_TYPES;

export type EventType = WebhookEventType;

export const isEventType = isWebhookEventType;

/** The record an event is about: its resource name, id and public state. */
export interface EventObject {
  resource: string;
  id: string;
  [field: string]: unknown;
}

/**
 * The JSON body of a delivery, as this example handles it (the package's WebhookEvent,
 * without the per-type record types). The same `id` travels every retry of the event.
 */
export interface DeliveryEvent {
  id: string;
  type: EventType;
  /** RFC 3339 with microseconds, e.g. 2026-11-22T10:00:00.123456Z. */
  created_at: string;
  /** true for a delivery queued by the Test action: sample data, no business change. */
  test: boolean;
  brand_id: string;
  data: { object: EventObject };
}
