import type { Campaign, Payout, Submission } from '../records/recordTypes.js';

/** The four event types a delivery can carry (docs/contract.md#event-types). */
export const WEBHOOK_EVENT_TYPES = [
  'submission.approved',
  'submission.rejected',
  'payout.paid',
  'campaign.settled',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The record an event is about. A real event carries every public field of the record, as
 * the read API lists it; a Test delivery (`test: true`) carries a sample with some of them.
 */
export type WebhookObject<R extends string, T> = Partial<T> & {
  resource: R;
  id: string;
  [field: string]: unknown;
};

/** The record of each event type. */
export interface WebhookObjects {
  'submission.approved': WebhookObject<'submissions', Submission>;
  'submission.rejected': WebhookObject<'submissions', Submission>;
  'payout.paid': WebhookObject<'payouts', Payout>;
  'campaign.settled': WebhookObject<'campaigns', Campaign>;
}

/**
 * The JSON body of a delivery. `id` (`evt_...`) is the same on every retry and for every
 * receiver: deduplicate on it and `data.object.id`, never on X-Service-Attempt. A union over
 * the types, so `switch (event.type)` narrows `event.data.object`.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: {
    id: string;
    type: K;
    /** When the change was committed: RFC 3339, UTC, microseconds. */
    created_at: string;
    /** True for a delivery queued by the Test action: sample data, no business change. */
    test: boolean;
    brand_id: string;
    data: { object: WebhookObjects[K] };
  };
}[T];
