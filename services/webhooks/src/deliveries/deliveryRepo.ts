import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';
import type { StoredTraceContext } from '@brand/shared/telemetry';
import type { Header } from './responseBody';

type Db = Pool | PoolClient;

export type DeliveryStatusName = 'pending' | 'succeeded' | 'failed';

/**
 * What a worker needs to deliver, read with each claim (claimDueDeliveries): the receiver's
 * URL and sealed secrets, the current one and a pending rotation's new one with its switch
 * time, to sign with the one in force (signingSecret.ts).
 */
export interface ReceiverTarget {
  id: string;
  url: string;
  enabled: boolean;
  secret_ciphertext: Buffer;
  secret_key_id: string;
  secret_version: number;
  pending_secret_ciphertext: Buffer | null;
  pending_secret_key_id: string | null;
  rotation_switch_at: Date | null;
}

/**
 * A claimed delivery with everything needed to build, sign and send it (its receiver's
 * address and secrets as the claim read them: no query of its own before the send), and the
 * trace context its event was stored in (the attempt's span continues it).
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
  /** Set on a Test signed with a rotation's new secret: the secret version to sign with. */
  secret_version: number | null;
  target: ReceiverTarget;
}

/** A claim's row as PostgreSQL returns it: the receiver's columns prefixed `target_`. */
type ClaimRow = Omit<ClaimedDelivery, 'target'> & {
  [K in keyof ReceiverTarget as `target_${K}`]: ReceiverTarget[K];
};

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
  signed_with_new_secret: boolean;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error_class: string | null;
  excerpt: string | null;
  error_message: string | null;
}

/** What an attempt sent and got back, while its retention lasts. */
export interface AttemptDetailRow {
  number: number;
  request_headers: Header[];
  response_headers: Header[];
  response_body: string;
  response_body_truncated: boolean;
  response_body_bytes: string;
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
  const res = await db.query<ClaimRow>({
    name: 'webhooks.claim-due-deliveries',
    text: `with recursive active as (
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
     from locked, events e, receivers r
     where d.id = locked.id and e.id = d.event_id and r.id = d.receiver_id
     returning d.id, d.receiver_id, d.attempts, d.round_start, d.event_id, e.type as event_type,
       ${rfc3339('e.created_at')} as event_created_at, d.brand_id, e.object_json, e.test,
       d.secret_version, e.traceparent, e.tracestate,
       r.id as target_id, r.url as target_url, r.enabled as target_enabled,
       r.secret_ciphertext as target_secret_ciphertext, r.secret_key_id as target_secret_key_id,
       r.secret_version as target_secret_version,
       r.pending_secret_ciphertext as target_pending_secret_ciphertext,
       r.pending_secret_key_id as target_pending_secret_key_id,
       r.rotation_switch_at as target_rotation_switch_at`,
    values: [opts.limit, opts.busy, opts.perReceiver, opts.leaseMs],
  });
  return res.rows.map(
    ({
      target_id: id,
      target_url: url,
      target_enabled: enabled,
      target_secret_ciphertext: secret_ciphertext,
      target_secret_key_id: secret_key_id,
      target_secret_version: secret_version,
      target_pending_secret_ciphertext: pending_secret_ciphertext,
      target_pending_secret_key_id: pending_secret_key_id,
      target_rotation_switch_at: rotation_switch_at,
      ...delivery
    }) => ({
      ...delivery,
      target: {
        id,
        url,
        enabled,
        secret_ciphertext,
        secret_key_id,
        secret_version,
        pending_secret_ciphertext,
        pending_secret_key_id,
        rotation_switch_at,
      },
    }),
  );
}

const DELIVERY_COLUMNS = `d.id, d.event_id, d.receiver_id, d.brand_id, e.type as event_type, e.test,
  d.status, d.attempts,
  case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as next_attempt_at,
  d.last_status, d.last_error, ${rfc3339('d.created_at')} as created_at,
  ${rfc3339('d.completed_at')} as completed_at,
  d.secret_version is not null as signed_with_new_secret`;

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

/** One delivery, with its event's stored form (from which the exact body sent is rebuilt). */
export interface DeliveryWithEvent extends DeliveryRow {
  event_created_at: string;
  object_json: string;
}

export async function selectDelivery(db: Db, id: string): Promise<DeliveryWithEvent | undefined> {
  const res = await db.query<DeliveryWithEvent>(
    `select ${DELIVERY_COLUMNS}, ${rfc3339('e.created_at')} as event_created_at, e.object_json
     from deliveries d join events e on e.id = d.event_id where d.id = $1`,
    [id],
  );
  return res.rows[0];
}

export async function selectAttempts(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const res = await db.query<AttemptRow>(
    `select delivery_id, number, ${rfc3339('started_at')} as started_at, duration_ms, status_code,
       error_class, excerpt, error_message
     from attempts where delivery_id = any($1::text[]) order by delivery_id, number`,
    [deliveryIds],
  );
  return res.rows;
}

/** The retained detail of one delivery's attempts (none once swept). */
export async function selectAttemptDetails(
  db: Db,
  deliveryId: string,
): Promise<AttemptDetailRow[]> {
  const res = await db.query<AttemptDetailRow>(
    `select number, request_headers, response_headers, response_body, response_body_truncated,
       response_body_bytes
     from attempt_details where delivery_id = $1 order by number`,
    [deliveryId],
  );
  return res.rows;
}

/**
 * "Retry now": a pending delivery's next attempt due at once, unless an attempt is in
 * flight (leased). Returns false when the delivery is not waiting for a retry.
 */
export async function makeDueNow(db: Db, id: string): Promise<boolean> {
  const res = await db.query(
    `update deliveries set next_attempt_at = now()
     where id = $1 and status = 'pending' and (lease_until is null or lease_until < now())`,
    [id],
  );
  return res.rowCount === 1;
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

/** Inserts one test delivery (the Test action), to sign with `secretVersion` when set. */
export async function insertTestDelivery(
  db: Db,
  d: {
    id: string;
    eventId: string;
    receiverId: string;
    brandId: string;
    secretVersion: number | null;
  },
): Promise<void> {
  await db.query(
    `insert into deliveries (id, event_id, receiver_id, brand_id, test, secret_version)
     values ($1, $2, $3, $4, true, $5)`,
    [d.id, d.eventId, d.receiverId, d.brandId, d.secretVersion],
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
