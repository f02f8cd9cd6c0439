import type { KeysetPosition, Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';
import type { DeliveryStatusName } from '../claim/claimRepo';
import { leaseFree } from '../claim/lease';
import { typeNotSelected } from '../receivers/receiverRepo';
import type { Header } from '../send/responseBody';

type Db = Pool | PoolClient;

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
  /** Attempts in the current round of the retry schedule (a resend starts a new round). */
  attempts_in_round: number;
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

/** A delivery as the log and the admin RPCs show it: the deliveries row alone. */
const DELIVERY_COLUMNS = `d.id, d.event_id, d.receiver_id, d.brand_id, d.event_type, d.test,
  d.status, d.attempts,
  case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as next_attempt_at,
  d.last_status, d.last_error, ${rfc3339('d.created_at')} as created_at,
  ${rfc3339('d.completed_at')} as completed_at,
  d.secret_version is not null as signed_with_new_secret,
  d.attempts - d.round_start as attempts_in_round`;

/**
 * Every delivery of some events of a brand (the console's Events page), with its receiver's
 * label, by the events' exact keys (id and created_at: one partition each); test deliveries
 * aside. Ordered by event, then receiver.
 */
export async function selectDeliveriesOfEvents(
  db: Db,
  brandId: string,
  events: ReadonlyArray<{ id: string; createdAt: string }>,
): Promise<Array<DeliveryRow & { receiver_label: string }>> {
  if (events.length === 0) return [];
  const res = await db.query<DeliveryRow & { receiver_label: string }>(
    `select ${DELIVERY_COLUMNS}, r.label as receiver_label
     from unnest($2::text[], $3::timestamptz[]) as k(event_id, event_at)
     join deliveries d on d.event_id = k.event_id and d.event_at = k.event_at
     join receivers r on r.id = d.receiver_id
     where d.brand_id = $1 and not d.test
     order by d.event_id, d.receiver_id`,
    [brandId, events.map((e) => e.id), events.map((e) => e.createdAt)],
  );
  return res.rows;
}

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
  // a brand's webhook deliveries: its audit streams' runs are their own (issue 63)
  if (q.receiverId === undefined) walk.push(`d.event_type <> 'audit.entries'`);
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
     where id = $1 and status = 'pending' and ${leaseFree()}`,
    [id],
  );
  return res.rowCount === 1;
}

/**
 * Queues a finished delivery again, now, with a fresh round of the retry schedule: 'queued';
 * 'pending' when it already is, 'type_not_selected' when its receiver no longer selects its
 * event type (it would refuse it, and the refusal would count against it), 'past_retention' for an event older than the history retention
 * (`historyMs`). The history keeper drops a week of such events once it found none of them
 * pending: a resend between its look and its drop was told "queued" and then vanished with the
 * week (a review, 2026-11-29). The keeper drops a week only once all of it is past the same
 * bound, so the two agree (up to a skew between the database's clock, used here, and the
 * keeper's host's, at a week's very edge).
 */
export async function requeueDelivery(
  db: Db,
  id: string,
  historyMs: number,
): Promise<'queued' | 'pending' | 'past_retention' | 'type_not_selected'> {
  // The receiver's row is read FOR SHARE: an owner's narrowing of its events that is under way
  // (which fails its pending deliveries of the dropped types) is waited for and then seen, so a
  // resend never slips a dropped type in between (typeNotSelected, failUnselectedDeliveries).
  const res = await db.query<{
    outcome: 'queued' | 'pending' | 'past_retention' | 'type_not_selected';
  }>(
    `with target as (
       select ${typeNotSelected('d.event_type', 'r.')} as not_selected
       from deliveries d join receivers r on r.id = d.receiver_id
       where d.id = $1 for share of r
     ), queued as (
       update deliveries set status = 'pending', next_attempt_at = now(), round_start = attempts,
         lease_until = null, completed_at = null, caught_up = false
       where id = $1 and status <> 'pending'
         and event_at > now() - make_interval(secs => $2::float8 / 1000)
         and not coalesce((select not_selected from target), false)
       returning 1
     )
     select case when exists (select 1 from queued) then 'queued'
                 when exists (select 1 from deliveries where id = $1 and status = 'pending')
                   then 'pending'
                 when (select not_selected from target) then 'type_not_selected'
                 else 'past_retention' end as outcome`,
    [id, historyMs],
  );
  return res.rows[0]!.outcome;
}

/**
 * Locks a receiver's row (an audit stream's too: streams are rows of receivers) for the Test
 * action, so Tests of it at once take turns and each counts the ones before it
 * (boundedPendingTests). False when there is no such row.
 */
export async function lockReceiverForTest(db: PoolClient, receiverId: string): Promise<boolean> {
  const res = await db.query(`select 1 from receivers where id = $1 for update`, [receiverId]);
  return res.rowCount === 1;
}

/** A receiver's pending Tests, oldest first, up to $2 (countPendingTests). */
export const PENDING_TESTS = `select id,
    to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as queued_at
  from deliveries where receiver_id = $1 and status = 'pending' and test
  order by created_at limit $2`;

/**
 * How many of the receiver's (or stream's) Test deliveries are pending, queued or their one
 * attempt in flight, counted up to `upTo`, with the oldest's id and when it was queued (to the
 * second, UTC). Reads deliveries_pending_test (migration 0021): the Tests alone, not the
 * receiver's backlog of business deliveries.
 */
export async function countPendingTests(
  db: Db,
  receiverId: string,
  upTo: number,
): Promise<{ count: number; oldest?: { id: string; queued_at: string } }> {
  const res = await db.query<{ id: string; queued_at: string }>(PENDING_TESTS, [receiverId, upTo]);
  return { count: res.rows.length, oldest: res.rows[0] };
}

/**
 * Inserts one test delivery (the Test action), to sign with `secretVersion` when set. Its
 * created_at is the clock at the insert, after the caller locked the receiver: so a Test with a
 * rotation's new secret is never older than the rotation (discardRotation finds them so).
 */
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
       secret_version, created_at)
     values ($1, $2, $3, $4, $5, $6, true, $7, clock_timestamp())`,
    [d.id, d.eventId, d.eventAt, d.eventType, d.receiverId, d.brandId, d.secretVersion],
  );
}
