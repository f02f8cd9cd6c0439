import type { KeysetPosition, Pool, PoolClient } from '@brand/shared/db';
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
  /**
   * Its failed attempts in a row as the claim read them: a 2xx now makes its waiting
   * deliveries due (catch-up, attemptRepo.ts), which the worker then scans for at once.
   */
  failure_count: number;
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

/** Which receivers one claim may take deliveries of, and how many of each. */
export interface ClaimScope {
  /** Deliveries to claim at most. */
  limit: number;
  /** Due rows of one receiver per claim at most (DELIVERY_PER_RECEIVER_CONCURRENCY). */
  perReceiver: number;
  /** Receivers with attempts in this worker, and how many more each may take (0: none). */
  receiverRoom: Map<string, number>;
  /**
   * `only`: just these receivers (the slow lane's claim). `except`: every receiver with
   * pending deliveries but these (the shared budget's claim, which leaves slow ones out).
   */
  receivers: { only: string[] } | { except: string[] };
  leaseMs: number;
}

/**
 * The receivers a claim considers. With `except`, those with pending deliveries, found by a
 * skip scan of deliveries_pending_receiver (one index probe per such receiver), so a claim's
 * cost follows the number of active receivers, not the backlog (ranking every due delivery
 * took 16 ms at 10,000); with `only`, the list given.
 */
const ACTIVE_EXCEPT = `active as (
       select receiver_id from (
         with recursive pending as (
           (select receiver_id from deliveries where status = 'pending' order by receiver_id limit 1)
           union all
           select (select d.receiver_id from deliveries d
                   where d.status = 'pending' and d.receiver_id > p.receiver_id
                   order by d.receiver_id limit 1)
           from pending p where p.receiver_id is not null
         ) select receiver_id from pending
       ) p where receiver_id is not null and not (receiver_id = any($2::text[]))
     )`;
const ACTIVE_ONLY = `active as (select unnest($2::text[]) as receiver_id)`;

/**
 * The end of both claims: leases the rows of the `locked` CTE for `leaseMs` (the parameter
 * named) and returns each with its event and its receiver's target.
 */
const leaseLocked = (leaseMs: string): string => `
     update deliveries d set lease_until = now() + ${leaseMs}::int * interval '1 millisecond'
     from locked, events e, receivers r
     where d.id = locked.id and d.event_at = locked.event_at
       and e.id = d.event_id and e.created_at = d.event_at and r.id = d.receiver_id
     returning d.id, d.receiver_id, d.attempts, d.round_start, d.event_id, e.type as event_type,
       ${rfc3339('d.event_at')} as event_created_at, d.brand_id, e.object_json, e.test,
       d.secret_version, e.traceparent, e.tracestate,
       r.id as target_id, r.url as target_url, r.enabled as target_enabled,
       r.secret_ciphertext as target_secret_ciphertext, r.secret_key_id as target_secret_key_id,
       r.secret_version as target_secret_version,
       r.pending_secret_ciphertext as target_pending_secret_ciphertext,
       r.pending_secret_key_id as target_pending_secret_key_id,
       r.rotation_switch_at as target_rotation_switch_at,
       r.failure_count as target_failure_count`;

function toClaimed({
  target_id: id,
  target_url: url,
  target_enabled: enabled,
  target_secret_ciphertext: secret_ciphertext,
  target_secret_key_id: secret_key_id,
  target_secret_version: secret_version,
  target_pending_secret_ciphertext: pending_secret_ciphertext,
  target_pending_secret_key_id: pending_secret_key_id,
  target_rotation_switch_at: rotation_switch_at,
  target_failure_count: failure_count,
  ...delivery
}: ClaimRow): ClaimedDelivery {
  return {
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
      failure_count,
    },
  };
}

/**
 * Claims up to `limit` due deliveries for this worker: pending, due, not leased (or the
 * lease expired: its worker died), of an enabled receiver in the scope, each receiver's
 * oldest first and at most its room (`receiverRoom`, else `perReceiver`); candidates are
 * taken round-robin across receivers (every receiver's first, then every receiver's second,
 * ...), so the claim is fair across receivers with ready work and a backlog of one cannot
 * starve another. Rows are locked with FOR UPDATE SKIP LOCKED and leased for `leaseMs`, so
 * concurrent workers never claim the same row. The lease is the only column the claim
 * writes, no index holds it, and the partitions leave room in each page (fillfactor,
 * historyPartitions.ts), so the claim's update can be a HOT one. Its plan depends on the week
 * partition's statistics, which the history keeper refreshes (without them the generic plan
 * made while the week was empty hashed every pending row to lock a dozen).
 */
export async function claimDueDeliveries(db: Db, scope: ClaimScope): Promise<ClaimedDelivery[]> {
  const only = 'only' in scope.receivers;
  const named = 'only' in scope.receivers ? scope.receivers.only : scope.receivers.except;
  const room = [...scope.receiverRoom];
  const res = await db.query<ClaimRow>({
    name: only ? 'webhooks.claim-due-deliveries-of' : 'webhooks.claim-due-deliveries',
    text: `with ${only ? ACTIVE_ONLY : ACTIVE_EXCEPT}, room as (
       select * from unnest($5::text[], $6::int[]) as room(receiver_id, free)
     ), candidates as (
       select c.id, c.event_at from active a
       join receivers r on r.id = a.receiver_id
       left join room on room.receiver_id = a.receiver_id
       cross join lateral (
         select d.id, d.event_at, d.next_attempt_at,
                row_number() over (order by d.next_attempt_at, d.id) as rn
         from deliveries d
         where d.receiver_id = a.receiver_id and d.status = 'pending'
           and d.next_attempt_at <= now()
           and (d.lease_until is null or d.lease_until < now())
         order by d.next_attempt_at, d.id
         limit coalesce(room.free, $3)
       ) c
       where r.enabled
       order by c.rn, c.next_attempt_at limit $1
     ), locked as (
       select d.id, d.event_at from deliveries d
       join candidates c on c.id = d.id and c.event_at = d.event_at
       where d.status = 'pending' and (d.lease_until is null or d.lease_until < now())
       for update of d skip locked
     )
     ${leaseLocked('$4')}`,
    values: [
      scope.limit,
      named,
      scope.perReceiver,
      scope.leaseMs,
      room.map(([id]) => id),
      room.map(([, free]) => free),
    ],
  });
  return res.rows.map(toClaimed);
}

/**
 * Claims deliveries named by primary key (the feed from this process's consumer,
 * deliveryFeed.ts) on the same terms as claimDueDeliveries: pending, due, not leased (or the
 * lease expired), of an enabled receiver, locked with FOR UPDATE SKIP LOCKED and leased for
 * `leaseMs`. A named delivery that another worker holds, that was delivered, or that is not
 * due is not returned. Each row is found by its key, so the cost is the rows named, whatever
 * the pending index holds.
 */
export async function claimFedDeliveries(
  db: Db,
  fed: ReadonlyArray<{ id: string; eventAt: string }>,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  if (fed.length === 0) return [];
  const res = await db.query<ClaimRow>({
    name: 'webhooks.claim-fed-deliveries',
    text: `with locked as (
       select d.id, d.event_at
       from unnest($1::text[], $2::timestamptz[]) as fed(id, event_at)
       join deliveries d on d.id = fed.id and d.event_at = fed.event_at
       join receivers r on r.id = d.receiver_id
       where d.status = 'pending' and d.next_attempt_at <= now()
         and (d.lease_until is null or d.lease_until < now()) and r.enabled
       for update of d skip locked
     ) ${leaseLocked('$3')}`,
    values: [fed.map((d) => d.id), fed.map((d) => d.eventAt), leaseMs],
  });
  return res.rows.map(toClaimed);
}

/** A delivery as the log and the admin RPCs show it: the deliveries row alone. */
const DELIVERY_COLUMNS = `d.id, d.event_id, d.receiver_id, d.brand_id, d.event_type, d.test,
  d.status, d.attempts,
  case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as next_attempt_at,
  d.last_status, d.last_error, ${rfc3339('d.created_at')} as created_at,
  ${rfc3339('d.completed_at')} as completed_at,
  d.secret_version is not null as signed_with_new_secret`;

/** Where a page of the log ended: the exact created_at (microseconds) and id of a row. */
type LogPosition = KeysetPosition;

/** What one page of the delivery log asks for (deliveryLog.ts validates it). */
export interface DeliveryLogQuery {
  /** Exactly one of receiverId and brandId. */
  receiverId?: string;
  brandId?: string;
  limit: number;
  /** Rows strictly older than this position (the previous page's end). */
  after?: LogPosition;
  status?: DeliveryStatusName;
  eventType?: EventTypeName;
  since?: Date;
  until?: Date;
  eventId?: string;
  recordId?: string;
}

/** Deliveries one filtered page scans at most (state or event type filters). */
const LOG_SCAN_BOUND = 20_000;

/**
 * One page of the delivery log, newest first ((created_at, id) descending; keyset, never
 * OFFSET), and where a next page would start (undefined: nothing more). The work is bounded
 * whatever the history holds:
 * - a find by event id or record id reads that event's deliveries by index (the unique
 *   (event_id, receiver_id, event_at) key; events_brand_record for a record);
 * - otherwise the log's index ((receiver_id | brand_id, created_at desc, id desc), with the
 *   time range as its bounds) is walked from the cursor. Without a state or event-type filter
 *   every row read is returned, so the walk stops at `limit`. With one, at most
 *   LOG_SCAN_BOUND rows are walked; when they hold fewer than `limit` matches and the walk
 *   reached its bound, the page ends early and the next one goes on from the last row walked.
 */
export async function selectDeliveryLog(
  db: Db,
  q: DeliveryLogQuery,
): Promise<{ rows: DeliveryRow[]; next: LogPosition | undefined }> {
  const values: unknown[] = [];
  const $ = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const owner =
    q.receiverId !== undefined
      ? `d.receiver_id = ${$(q.receiverId)}`
      : `d.brand_id = ${$(q.brandId)}`;
  const walk = [owner];
  if (q.after)
    walk.push(`(d.created_at, d.id) < (${$(q.after.created_at)}::timestamptz, ${$(q.after.id)})`);
  if (q.since) walk.push(`d.created_at >= ${$(q.since)}`);
  if (q.until) walk.push(`d.created_at < ${$(q.until)}`);
  if (q.eventId) walk.push(`d.event_id = ${$(q.eventId)}`);
  if (q.recordId) {
    // the brand's events about this record; the receiver's brand when a receiver is named
    const brand =
      q.receiverId !== undefined ? `(select brand_id from receivers where id = $1)` : '$1';
    walk.push(
      `d.event_id = any(array(select r.id from events r where r.brand_id = ${brand} and r.record_id = ${$(q.recordId)}))`,
    );
  }
  const match: string[] = [];
  if (q.status) match.push(`d.status = ${$(q.status)}`);
  if (q.eventType) match.push(`d.event_type = ${$(q.eventType)}`);
  const limit = $(q.limit);
  const order = 'order by d.created_at desc, d.id desc';
  if (match.length === 0) {
    const res = await db.query<DeliveryRow & { position_at: string }>(
      `select ${DELIVERY_COLUMNS}, ${rfc3339('d.created_at')} as position_at
       from deliveries d
       where ${walk.join(' and ')} ${order} limit ${limit}`,
      values,
    );
    const last = res.rows.at(-1);
    const next =
      last && res.rows.length === q.limit
        ? { created_at: last.position_at, id: last.id }
        : undefined;
    return { rows: res.rows.map(withoutPosition), next };
  }
  const bound = $(LOG_SCAN_BOUND);
  const res = await db.query<
    DeliveryRow & {
      position_at: string;
      walked: number;
      edge_at: string | null;
      edge_id: string | null;
    }
  >(
    `with walked as materialized (
       select d.id, d.created_at, d.event_id, d.event_at, d.event_type, d.status from deliveries d
       where ${walk.join(' and ')} ${order} limit ${bound}
     ), edge as (
       select count(*)::int as walked,
         (select ${rfc3339('w.created_at')} from walked w order by w.created_at, w.id limit 1) as edge_at,
         (select w.id from walked w order by w.created_at, w.id limit 1) as edge_id
       from walked
     ), page as (
       select d.id, d.event_at from walked d
       where ${match.join(' and ')} ${order} limit ${limit}
     )
     select ${DELIVERY_COLUMNS}, ${rfc3339('d.created_at')} as position_at,
       edge.walked, edge.edge_at, edge.edge_id
     from edge left join (
       page p join deliveries d on d.id = p.id and d.event_at = p.event_at
     ) on true
     ${order}`,
    values,
  );
  const edge = res.rows[0]!;
  const rows = res.rows.filter((r) => r.id !== null);
  const last = rows.at(-1);
  let next: LogPosition | undefined;
  if (last && rows.length === q.limit) next = { created_at: last.position_at, id: last.id };
  else if (edge.walked === LOG_SCAN_BOUND && edge.edge_at && edge.edge_id)
    next = { created_at: edge.edge_at, id: edge.edge_id };
  return {
    rows: rows.map(({ walked: _w, edge_at: _a, edge_id: _i, ...row }) => withoutPosition(row)),
    next,
  };
}

const withoutPosition = <T extends { position_at: string }>({
  position_at: _p,
  ...row
}: T): Omit<T, 'position_at'> => row;

/** One delivery, with its event's stored form (from which the exact body sent is rebuilt). */
export interface DeliveryWithEvent extends DeliveryRow {
  event_created_at: string;
  object_json: string;
}

export async function selectDelivery(db: Db, id: string): Promise<DeliveryWithEvent | undefined> {
  const res = await db.query<DeliveryWithEvent>(
    `select ${DELIVERY_COLUMNS}, ${rfc3339('d.event_at')} as event_created_at, e.object_json
     from deliveries d cross join lateral (
       select object_json from events e where e.id = d.event_id and e.created_at = d.event_at
     ) e
     where d.id = $1`,
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
       lease_until = null, completed_at = null, caught_up = false
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
    /** The test event's created_at, exactly as stored, and its type. */
    eventAt: string;
    eventType: EventTypeName;
    brandId: string;
    secretVersion: number | null;
  },
): Promise<void> {
  await db.query(
    `insert into deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, test,
       secret_version)
     values ($1, $2, $3, $4, $5, $6, true, $7)`,
    [d.id, d.eventId, d.eventAt, d.eventType, d.receiverId, d.brandId, d.secretVersion],
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
