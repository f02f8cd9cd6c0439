import { unseenArray, type PoolClient } from '@brand/shared/db';
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

/** A brand's feed version after a commit: the position of its newest event in the feed. */
export interface FeedVersion {
  brandId: string;
  /** A decimal integer, as PostgreSQL's bigint arrives. */
  version: string;
}

/** What one insertEvents call stored. */
export interface StoredEvents {
  /**
   * For each event this call inserted, the receivers that get a delivery of it (an event with
   * no such receiver maps to an empty list; one stored before is absent).
   */
  receivers: Map<string, string[]>;
  /** The feed version of each brand this call added events of, to publish once committed. */
  feedVersions: FeedVersion[];
}

/**
 * The types of insertEvents' ten arrays, $1..$10, each behind unseenArray: one generic plan
 * for a chunk of any size (the number of events seen, PostgreSQL planned the statement again for
 * most chunks).
 */
const EVENT_COLUMNS = [
  'text[]',
  'text[]',
  'text[]',
  'timestamptz[]',
  'text[]',
  'boolean[]',
  'text[]',
  'text[]',
  'text[]',
  'text[]',
] as const;

/**
 * Inserts, in ONE statement, the events not stored yet (an id already stored is a redelivered
 * Kafka message, which carries the same created_at: the key that holds the partition key is
 * exact; twice in one call, it is stored once), and returns, for each event this call
 * inserted, the receivers that get a delivery of it: the enabled receivers of its brand that
 * selected its type and existed when it happened (receivers added later do not get older
 * events). At three statements an event, the consumer's round trips were a third of the
 * statements S6 sent (issue 36).
 *
 * The same statement gives each new business event (not a test) its feed position
 * (migrations/0014_events_feed.sql): it advances the brand's row of event_feed_heads by the
 * number of new events, in brand order (two chunks never wait on each other crosswise), and
 * holds that row's lock until the caller's transaction commits, so positions follow commit
 * order; within a chunk they follow the order of `events` (the brand's Kafka partition order,
 * which is the order its producer committed them in). A redelivered event racing its first insert on another consumer leaves a gap in the
 * positions, never a repeat; followers skip gaps.
 */
export async function insertEvents(
  db: PoolClient,
  events: readonly StoredEvent[],
): Promise<StoredEvents> {
  const res = await db.query<{
    event_id: string;
    brand_id: string;
    receiver_id: string | null;
    feed_version: string | null;
  }>({
    name: 'webhooks.insert-events',
    text: `with incoming as (
       select distinct on (i.id, i.created_at) i.*
       from unnest(${EVENT_COLUMNS.map((type, i) => unseenArray(i + 1, type)).join(', ')})
         with ordinality
         as i(id, brand_id, type, created_at, object_json, test, producer, traceparent,
           tracestate, record_id, ord)
       where not exists (
         select 1 from events e where e.id = i.id and e.created_at = i.created_at)
       order by i.id, i.created_at, i.ord
     ),
     counts as (
       select brand_id, count(*) as n from incoming where not test group by brand_id
     ),
     heads as (
       insert into event_feed_heads as h (brand_id, last_seq)
       select brand_id, n from counts order by brand_id
       on conflict (brand_id) do update
         set last_seq = h.last_seq + excluded.last_seq, advanced_at = now()
       returning brand_id, last_seq
     ),
     stored as (
       insert into events (id, brand_id, type, created_at, object_json, test, producer,
         traceparent, tracestate, record_id, feed_seq)
       select i.id, i.brand_id, i.type, i.created_at, i.object_json, i.test, i.producer,
         i.traceparent, i.tracestate, i.record_id,
         case when i.test then null else hd.last_seq - c.n + row_number() over (
           partition by i.brand_id, i.test order by i.ord) end
       from incoming i
       left join counts c on c.brand_id = i.brand_id
       left join heads hd on hd.brand_id = i.brand_id
       on conflict (id, created_at) do nothing
       returning id, brand_id, type, created_at, test
     )
     select s.id as event_id, s.brand_id, r.id as receiver_id,
       case when s.test then null else hd.last_seq::text end as feed_version
     from stored s
     left join heads hd on hd.brand_id = s.brand_id
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
  const versions = new Map<string, string>();
  for (const { event_id, brand_id, receiver_id, feed_version } of res.rows) {
    const list = receivers.get(event_id) ?? [];
    if (receiver_id !== null) list.push(receiver_id);
    receivers.set(event_id, list);
    if (feed_version !== null) versions.set(brand_id, feed_version);
  }
  const feedVersions = [...versions].map(([brandId, version]) => ({ brandId, version }));
  return { receivers, feedVersions };
}

/**
 * Inserts one event unless it is stored already, in the active span's trace context; true
 * when this call inserted it. (The Test action's event: its one delivery is made apart.)
 */
export async function insertEventOnce(db: PoolClient, e: EventInput): Promise<boolean> {
  return (await insertEvents(db, [{ ...e, ...traceContextOf() }])).receivers.has(e.id);
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
