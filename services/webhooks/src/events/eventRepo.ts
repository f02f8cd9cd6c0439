import type { PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { traceContextOf } from '@brand/shared/telemetry';

export interface EventInput {
  id: string;
  brandId: string;
  type: EventTypeName;
  createdAt: string;
  objectJson: string;
  test: boolean;
  producer: string;
}

/** The id of the record an event is about (its data.object's id), for finding its deliveries. */
function recordIdOf(objectJson: string): string | null {
  try {
    const id = (JSON.parse(objectJson) as { id?: unknown }).id;
    return typeof id === 'string' && id.length <= 200 ? id : null;
  } catch {
    return null;
  }
}

/**
 * Inserts an event unless its id is already stored (a redelivered Kafka message, which
 * carries the same created_at: the key that holds the partition key is exact). Returns
 * true when this call inserted it: only then are its deliveries created. The active span's
 * trace context is stored with it, so its delivery attempts continue that trace.
 */
export async function insertEventOnce(db: PoolClient, e: EventInput): Promise<boolean> {
  const trace = traceContextOf();
  const res = await db.query({
    name: 'webhooks.insert-event',
    text: `insert into events (id, brand_id, type, created_at, object_json, test, producer, traceparent, tracestate, record_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (id, created_at) do nothing`,
    values: [
      e.id,
      e.brandId,
      e.type,
      e.createdAt,
      e.objectJson,
      e.test,
      e.producer,
      trace.traceparent,
      trace.tracestate,
      recordIdOf(e.objectJson),
    ],
  });
  return res.rowCount === 1;
}

/**
 * Creates one pending delivery per enabled receiver of the event's brand that selected its
 * type and existed when the event happened (receivers added later do not get older
 * events). Ids come from the caller's generator, one per matching receiver. Returns how
 * many were created.
 */
export async function insertDeliveriesForEvent(
  db: PoolClient,
  event: { id: string; brandId: string; type: EventTypeName; createdAt: string },
  newDeliveryId: () => string,
): Promise<number> {
  const receivers = await db.query<{ id: string }>({
    name: 'webhooks.event-receivers',
    text: `select id from receivers
     where brand_id = $1 and enabled and $2 = any(events) and created_at <= $3::timestamptz`,
    values: [event.brandId, event.type, event.createdAt],
  });
  if (receivers.rows.length === 0) return 0;
  const ids = receivers.rows.map(() => newDeliveryId());
  const res = await db.query({
    name: 'webhooks.insert-deliveries',
    text: `insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select d.id, $2, $5::timestamptz, $6, d.receiver_id, $3
     from unnest($1::text[], $4::text[]) as d(id, receiver_id)
     on conflict (event_id, receiver_id, event_at) do nothing`,
    values: [
      ids,
      event.id,
      event.brandId,
      receivers.rows.map((r) => r.id),
      event.createdAt,
      event.type,
    ],
  });
  return res.rowCount ?? 0;
}
