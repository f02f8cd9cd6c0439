import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';
import type { StoredTraceContext } from '@brand/shared/telemetry';

type Db = Pool | PoolClient;

export type DeliveryStatusName = 'pending' | 'succeeded' | 'failed';

/**
 * A claimed delivery with everything needed to build, sign and send it, and the trace
 * context its event was stored in (the attempt's span continues it).
 */
export interface ClaimedDelivery extends StoredTraceContext {
  id: string;
  receiver_id: string;
  attempts: number;
  round_start: number;
  event_id: string;
  event_type: EventTypeName;
  event_created_at: string;
  brand_id: string;
  object_json: string;
  test: boolean;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  receiver_id: string;
  brand_id: string;
  event_type: EventTypeName;
  test: boolean;
  status: DeliveryStatusName;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  excerpt: string | null;
}

/**
 * Claims up to `limit` due deliveries for this worker: pending, due, not leased (or the
 * lease expired: its worker died), of an enabled receiver, at most `perReceiver` per
 * receiver and none of the receivers in `busy` (already at their share in this worker),
 * so one slow receiver cannot take every slot; candidates are taken round-robin across
 * receivers (each receiver's oldest first), so a backlog of one cannot starve another.
 * Rows are locked with FOR UPDATE SKIP LOCKED and leased for `leaseMs`, so concurrent
 * workers never claim the same row.
 *
 * The receivers with pending deliveries are found by a skip scan of
 * deliveries_pending_receiver (one index probe per such receiver) and each one's first
 * `perReceiver` due rows read from the same index, so a claim's cost follows the number of
 * active receivers, not the backlog (ranking every due delivery took 16 ms at 10,000).
 */
export async function claimDueDeliveries(
  db: Db,
  opts: { limit: number; perReceiver: number; busy: string[]; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const res = await db.query<ClaimedDelivery>(
    `with recursive active as (
       (select receiver_id from deliveries where status = 'pending' order by receiver_id limit 1)
       union all
       select (select d.receiver_id from deliveries d
               where d.status = 'pending' and d.receiver_id > a.receiver_id
               order by d.receiver_id limit 1)
       from active a where a.receiver_id is not null
     ), candidates as (
       select c.id from active a
       join receivers r on r.id = a.receiver_id
       cross join lateral (
         select d.id, d.next_attempt_at,
                row_number() over (order by d.next_attempt_at, d.id) as rn
         from deliveries d
         where d.receiver_id = a.receiver_id and d.status = 'pending'
           and d.next_attempt_at <= now()
           and (d.lease_until is null or d.lease_until < now())
         order by d.next_attempt_at, d.id
         limit $3
       ) c
       where r.enabled and not (a.receiver_id = any($2::text[]))
       order by c.rn, c.next_attempt_at limit $1
     ), locked as (
       select d.id from deliveries d join candidates c on c.id = d.id
       where d.status = 'pending' and (d.lease_until is null or d.lease_until < now())
       for update of d skip locked
     )
     update deliveries d set lease_until = now() + $4::int * interval '1 millisecond'
     from locked, events e
     where d.id = locked.id and e.id = d.event_id
     returning d.id, d.receiver_id, d.attempts, d.round_start, d.event_id, e.type as event_type,
       ${rfc3339('e.created_at')} as event_created_at, d.brand_id, e.object_json, e.test,
       e.traceparent, e.tracestate`,
    [opts.limit, opts.busy, opts.perReceiver, opts.leaseMs],
  );
  return res.rows;
}

/** Records one attempt (the primary key makes a replayed attempt number a no-op). */
export async function insertAttempt(
  db: Db,
  a: {
    deliveryId: string;
    number: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    errorClass: string | null;
    excerpt: string | null;
  },
): Promise<void> {
  await db.query(
    `insert into attempts (delivery_id, number, started_at, duration_ms, status_code, error_class, excerpt)
     values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
    [a.deliveryId, a.number, a.startedAt, a.durationMs, a.statusCode, a.errorClass, a.excerpt],
  );
}

/**
 * Stores an attempt's result and releases the lease: `next` is the time of the next
 * attempt (still pending), or undefined when the delivery is finished with `status`.
 */
export async function finishAttempt(
  db: Db,
  d: {
    id: string;
    attempts: number;
    status: DeliveryStatusName;
    nextAttemptAt: Date | undefined;
    lastStatus: number | null;
    lastError: string | null;
  },
): Promise<void> {
  await db.query(
    `update deliveries set attempts = $2, status = $3::text,
       next_attempt_at = coalesce($4::timestamptz, next_attempt_at),
       lease_until = null, last_status = $5::int, last_error = $6::text,
       completed_at = case when $3::text = 'pending' then null else now() end
     where id = $1`,
    [d.id, d.attempts, d.status, d.nextAttemptAt ?? null, d.lastStatus, d.lastError],
  );
}

/**
 * A successful attempt in ONE statement (so one round trip, and atomic as a transaction):
 * the attempt row, the delivery succeeded (lease released), and the receiver's last status
 * and delivery time with its failure streak cleared (a test delivery leaves the streak as
 * it is). Exactly what insertAttempt + finishAttempt + recordReceiverOutcome write for a
 * 2xx; a success can never disable a receiver, so nothing else follows. Five round trips
 * per delivery were most of the worker's and PostgreSQL's CPU in the S6 benchmark.
 */
export async function recordSucceededAttempt(
  db: Db,
  a: {
    deliveryId: string;
    receiverId: string;
    number: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number;
    excerpt: string | null;
    test: boolean;
  },
): Promise<void> {
  await db.query(
    `with attempt as (
       insert into attempts (delivery_id, number, started_at, duration_ms, status_code, error_class, excerpt)
       values ($1, $2, $3, $4, $5, null, $6) on conflict do nothing
     ), delivery as (
       update deliveries set attempts = $2, status = 'succeeded', lease_until = null,
         last_status = $5::int, last_error = null, completed_at = now()
       where id = $1
     )
     update receivers set
       last_status = $5::int,
       last_delivery_at = now(),
       failure_count = case when $8::boolean then failure_count else 0 end,
       failing_since = case when $8::boolean then failing_since else null end
     where id = $7`,
    [
      a.deliveryId,
      a.number,
      a.startedAt,
      a.durationMs,
      a.statusCode,
      a.excerpt,
      a.receiverId,
      a.test,
    ],
  );
}

const DELIVERY_COLUMNS = `d.id, d.event_id, d.receiver_id, d.brand_id, e.type as event_type, e.test,
  d.status, d.attempts,
  case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as next_attempt_at,
  d.last_status, d.last_error, ${rfc3339('d.created_at')} as created_at,
  ${rfc3339('d.completed_at')} as completed_at`;

/** Deliveries of one receiver or one brand, newest first. */
export async function selectDeliveries(
  db: Db,
  filter: { receiverId?: string; brandId?: string; limit: number },
): Promise<DeliveryRow[]> {
  const byReceiver = filter.receiverId !== undefined;
  const res = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS} from deliveries d join events e on e.id = d.event_id
     where ${byReceiver ? 'd.receiver_id' : 'd.brand_id'} = $1
     order by d.created_at desc, d.id desc limit $2`,
    [byReceiver ? filter.receiverId : filter.brandId, filter.limit],
  );
  return res.rows;
}

export async function selectDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  const res = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS} from deliveries d join events e on e.id = d.event_id where d.id = $1`,
    [id],
  );
  return res.rows[0];
}

export async function selectAttempts(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const res = await db.query<AttemptRow>(
    `select delivery_id, number, ${rfc3339('started_at')} as started_at, duration_ms, status_code,
       error_class, excerpt
     from attempts where delivery_id = any($1::text[]) order by delivery_id, number`,
    [deliveryIds],
  );
  return res.rows;
}

/** Queues a finished delivery again, now, with a fresh round of the retry schedule. */
export async function requeueDelivery(db: Db, id: string): Promise<boolean> {
  const res = await db.query(
    `update deliveries set status = 'pending', next_attempt_at = now(), round_start = attempts,
       lease_until = null, completed_at = null
     where id = $1 and status <> 'pending'`,
    [id],
  );
  return res.rowCount === 1;
}

/** Inserts one delivery (the Test action). */
export async function insertDelivery(
  db: Db,
  d: { id: string; eventId: string; receiverId: string; brandId: string },
): Promise<void> {
  await db.query(
    `insert into deliveries (id, event_id, receiver_id, brand_id) values ($1, $2, $3, $4)`,
    [d.id, d.eventId, d.receiverId, d.brandId],
  );
}

/**
 * Pending deliveries by state, for /metrics: leased to a worker now, waiting for a
 * scheduled (re)try, or due and waiting for a free worker slot. Reads only pending rows
 * (the partial index deliveries_due).
 */
export async function selectPendingDepth(
  db: Db,
): Promise<{ due: number; in_flight: number; retry_scheduled: number }> {
  const res = await db.query<{ due: number; in_flight: number; retry_scheduled: number }>(
    `select
       count(*) filter (where lease_until > now())::int as in_flight,
       count(*) filter (where (lease_until is null or lease_until <= now())
                          and next_attempt_at > now())::int as retry_scheduled,
       count(*) filter (where (lease_until is null or lease_until <= now())
                          and next_attempt_at <= now())::int as due
     from deliveries where status = 'pending'`,
  );
  return res.rows[0]!;
}
