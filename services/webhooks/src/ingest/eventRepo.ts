import type { PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { traceContextOf, type StoredTraceContext } from '@brand/shared/telemetry';

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

/** An event to store, with the trace context its deliveries continue (its consumer span's). */
export type StoredEvent = EventInput & StoredTraceContext;

/** A delivery to create: one receiver of one newly stored event. */
export interface NewDelivery {
  id: string;
  eventId: string;
  eventAt: string;
  eventType: EventTypeName;
  receiverId: string;
  brandId: string;
}

/**
 * Inserts, in ONE statement, the events not stored yet (an id already stored is a redelivered
 * Kafka message, which carries the same created_at: the key that holds the partition key is
 * exact; twice in one call, it is stored once), and returns, for each event this call
 * inserted, the receivers that get a delivery of it: the enabled receivers of its brand that
 * selected its type and existed when it happened (receivers added later do not get older
 * events). An event inserted with no such receiver maps to an empty list; one stored before
 * is absent. At three statements an event, the consumer's round trips were a third of the
 * statements S6 sent (issue 36).
 */
export async function insertEvents(
  db: PoolClient,
  events: readonly StoredEvent[],
): Promise<Map<string, string[]>> {
  const res = await db.query<{ event_id: string; receiver_id: string | null }>({
    name: 'webhooks.insert-events',
    text: `with stored as (
       insert into events (id, brand_id, type, created_at, object_json, test, producer,
         traceparent, tracestate, record_id)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[],
         $6::boolean[], $7::text[], $8::text[], $9::text[], $10::text[])
       on conflict (id, created_at) do nothing
       returning id, brand_id, type, created_at
     )
     select s.id as event_id, r.id as receiver_id from stored s
     left join receivers r on r.brand_id = s.brand_id and r.enabled
       and s.type = any(r.events) and r.created_at <= s.created_at
     order by s.id, r.id`,
    values: [
      events.map((e) => e.id),
      events.map((e) => e.brandId),
      events.map((e) => e.type),
      events.map((e) => e.createdAt),
      events.map((e) => e.objectJson),
      events.map((e) => e.test),
      events.map((e) => e.producer),
      events.map((e) => e.traceparent),
      events.map((e) => e.tracestate),
      events.map((e) => recordIdOf(e.objectJson)),
    ],
  });
  const receivers = new Map<string, string[]>();
  for (const { event_id, receiver_id } of res.rows) {
    const list = receivers.get(event_id) ?? [];
    if (receiver_id !== null) list.push(receiver_id);
    receivers.set(event_id, list);
  }
  return receivers;
}

/**
 * Inserts one event unless it is stored already, in the active span's trace context; true
 * when this call inserted it. (The Test action's event: its one delivery is made apart.)
 */
export async function insertEventOnce(db: PoolClient, e: EventInput): Promise<boolean> {
  return (await insertEvents(db, [{ ...e, ...traceContextOf() }])).has(e.id);
}

/**
 * Creates pending deliveries, any number, in one statement; a delivery of an event to a
 * receiver that exists already is left as it is. Returns how many were created.
 */
export async function insertDeliveries(
  db: PoolClient,
  deliveries: readonly NewDelivery[],
): Promise<number> {
  if (deliveries.length === 0) return 0;
  const res = await db.query({
    name: 'webhooks.insert-deliveries',
    text: `insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[],
       $6::text[])
     on conflict (event_id, receiver_id, event_at) do nothing`,
    values: [
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.eventAt),
      deliveries.map((d) => d.eventType),
      deliveries.map((d) => d.receiverId),
      deliveries.map((d) => d.brandId),
    ],
  });
  return res.rowCount ?? 0;
}
