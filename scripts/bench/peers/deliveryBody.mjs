// What both peers (W0, W1) read from a Kafka message of the business-events topic: the
// BusinessEvent (the platform's proto), its public type name, and the delivery body built once
// (the same body as ours, `{"id","type","created_at","test","brand_id","data":{"object"}}`), so
// every attempt of every receiver signs the same bytes.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { BusinessEvent, EventType } = require('@brand/proto/events/v1');

const TYPES = new Map([
  [EventType.EVENT_TYPE_SUBMISSION_APPROVED, 'submission.approved'],
  [EventType.EVENT_TYPE_SUBMISSION_REJECTED, 'submission.rejected'],
  [EventType.EVENT_TYPE_PAYOUT_PAID, 'payout.paid'],
  [EventType.EVENT_TYPE_CAMPAIGN_SETTLED, 'campaign.settled'],
]);

/**
 * The event of one Kafka message as { brandId, type, body() }, or undefined for a message that
 * does not decode (logged) or an event type no receiver can subscribe to. `body` is a function:
 * a brand with no subscription for it never pays for the JSON.
 */
export function readDelivery(message) {
  let event;
  try {
    event = BusinessEvent.decode(message.value);
  } catch {
    console.warn(`skipped an undecodable message at offset ${message.offset}`);
    return undefined;
  }
  const type = TYPES.get(event.type);
  if (!type) return undefined;
  return {
    brandId: event.brand_id,
    type,
    body: () =>
      JSON.stringify({
        id: event.id,
        type,
        created_at: event.created_at,
        test: false,
        brand_id: event.brand_id,
        data: { object: JSON.parse(event.object_json) },
      }),
  };
}

/** The DDL of a peer's subscriptions table (a brand's receivers) in its own `schema`. */
export const subscriptionsDdl = (schema) => `create schema if not exists ${schema};
  create table if not exists ${schema}.subscriptions (
    id bigserial primary key,
    brand_id text not null,
    url text not null,
    secret text not null,
    events text[] not null,
    created_at timestamptz not null default now());
  create index if not exists subscriptions_brand on ${schema}.subscriptions (brand_id)`;
