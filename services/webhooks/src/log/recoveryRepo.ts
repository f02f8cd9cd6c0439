import type { Pool, PoolClient } from '@brand/shared/db';
import { leaseFree } from '../claim/lease';

type Db = Pool | PoolClient;

/** A recovery as stored under its request_id, to answer a repeated request. */
export interface RecoveryRow {
  receiver_id: string;
  since: Date;
  requeued: number;
  requeued_failed: number;
  made_due: number;
  remaining: number;
}

/** What is not yet delivered of a receiver since a time: failed, and waiting for a retry. */
export interface Undelivered {
  failed: number;
  waiting: number;
}

/**
 * SQL, true for a delivery (unqualified columns) of a type receiver $1 still selects: Recover
 * since leaves the others out, as the receiver would refuse them (failUnselectedDeliveries
 * failed them when its events were narrowed); an audit stream selects no types (typeNotSelected).
 * Both subqueries are uncorrelated: PostgreSQL reads the receiver once per statement, not per row.
 */
const SELECTED = `(coalesce((select kind <> 'webhook' from receivers where id = $1), true)
  or event_type = any((select events from receivers where id = $1)::text[]))`;

/**
 * The receiver's non-test deliveries created since `since` that are not delivered: failed
 * (a range of deliveries_failed_receiver) and pending without an attempt in flight (a range
 * of deliveries_waiting_receiver; due now or waiting for their next retry), of the types the
 * receiver selects (SELECTED).
 */
export async function countUndeliveredSince(
  db: Db,
  receiverId: string,
  since: Date,
): Promise<Undelivered> {
  const res = await db.query<Undelivered>(
    `select
       (select count(*)::int from deliveries
        where receiver_id = $1 and status = 'failed' and not test and created_at >= $2
          and ${SELECTED}) as failed,
       (select count(*)::int from deliveries
        where receiver_id = $1 and status = 'pending' and not test and created_at >= $2
          and ${leaseFree()} and ${SELECTED}) as waiting`,
    [receiverId, since],
  );
  return res.rows[0]!;
}

/**
 * Claims a request_id for a recovery of this receiver; false when it is already taken (a
 * concurrent twin waits here until the first commits, then sees its row).
 */
export async function claimRecovery(
  db: PoolClient,
  requestId: string,
  receiverId: string,
  since: Date,
): Promise<boolean> {
  const res = await db.query(
    `insert into recoveries (request_id, receiver_id, since, requeued, remaining)
     values ($1, $2, $3, 0, 0) on conflict (request_id) do nothing`,
    [requestId, receiverId, since],
  );
  return res.rowCount === 1;
}

export async function selectRecovery(db: Db, requestId: string): Promise<RecoveryRow | undefined> {
  const res = await db.query<RecoveryRow>(
    `select receiver_id, since, requeued, requeued_failed, made_due, remaining
     from recoveries where request_id = $1`,
    [requestId],
  );
  return res.rows[0];
}

export async function storeRecoveryResult(
  db: PoolClient,
  requestId: string,
  result: { requeuedFailed: number; madeDue: number; remaining: number },
): Promise<void> {
  await db.query(
    `update recoveries set requeued = $2::int + $3::int, requeued_failed = $2, made_due = $3, remaining = $4
     where request_id = $1`,
    [requestId, result.requeuedFailed, result.madeDue, result.remaining],
  );
}

/**
 * Everything of the receiver not yet delivered since `since` of the types it selects
 * (SELECTED), due now, oldest first, up to `limit`: failed (non-test) deliveries get a fresh round of retries (the same delivery, so
 * the same event id; the attempt counter goes on), and pending ones without an attempt in
 * flight (waiting for their next retry) keep their round and are due now, as "Retry now"
 * does. Their due times follow their age by a microsecond each, so the worker sends them
 * oldest first, paced by the receiver's concurrency. Rows another transaction holds are
 * skipped (and counted as remaining). Returns how many of each.
 */
export async function requeueUndeliveredSince(
  db: PoolClient,
  receiverId: string,
  since: Date,
  limit: number,
): Promise<{ requeuedFailed: number; madeDue: number }> {
  const res = await db.query<{ requeued_failed: number; made_due: number }>(
    `with failed as (
       select id, event_at, created_at, status from deliveries
       where receiver_id = $1 and status = 'failed' and not test and created_at >= $2
         and ${SELECTED}
       order by created_at, id limit $3 for update skip locked
     ), waiting as (
       select id, event_at, created_at, status from deliveries
       where receiver_id = $1 and status = 'pending' and not test and created_at >= $2
         and ${leaseFree()} and ${SELECTED}
       order by created_at, id limit $3 for update skip locked
     ), picked as (
       select id, event_at, status, row_number() over (order by created_at, id) as n
       from (select * from failed union all select * from waiting) undelivered
       order by created_at, id limit $3
     ), changed as (
       update deliveries d set
         status = 'pending', lease_until = null, completed_at = null,
         round_start = case when d.status = 'failed' then d.attempts else d.round_start end,
         caught_up = d.caught_up and d.status <> 'failed',
         next_attempt_at = now() + picked.n * interval '1 microsecond'
       from picked where d.id = picked.id and d.event_at = picked.event_at
       returning picked.status as was
     )
     select count(*) filter (where was = 'failed')::int as requeued_failed,
            count(*) filter (where was = 'pending')::int as made_due
     from changed`,
    [receiverId, since, limit],
  );
  const row = res.rows[0]!;
  return { requeuedFailed: row.requeued_failed, madeDue: row.made_due };
}

/** A delivery of receiver $1 waiting for a retry later than now (deliveries_waiting_receiver). */
const WAITING_LATER = `receiver_id = $1 and status = 'pending' and not test
  and next_attempt_at > now() and ${leaseFree()}`;

/**
 * "Retry now" for every delivery of the receiver waiting for its next retry (pending, not
 * test, not leased, due later than now), oldest first, up to `limit`: each is due now in its
 * round, as makeDueNow does for one, its due time following its age by a microsecond so the
 * worker sends them oldest first. Deliveries already due are left as they are (repeating the
 * request changes nothing more), and rows another transaction holds are skipped. Returns how
 * many were made due and how many waiting ones were left (beyond the bound, or held).
 */
export async function makeWaitingDueNow(
  db: PoolClient,
  receiverId: string,
  limit: number,
): Promise<{ madeDue: number; remaining: number }> {
  const res = await db.query<{ made_due: number; waiting: number }>(
    `with picked as (
       select id, event_at, created_at from deliveries
       where ${WAITING_LATER} order by created_at, id limit $2 for update skip locked
     ), ordered as (
       select id, event_at, row_number() over (order by created_at, id) as n from picked
     ), changed as (
       update deliveries d set next_attempt_at = now() + ordered.n * interval '1 microsecond'
       from ordered where d.id = ordered.id and d.event_at = ordered.event_at
       returning d.id
     )
     select (select count(*)::int from changed) as made_due,
            (select count(*)::int from deliveries where ${WAITING_LATER}) as waiting`,
    [receiverId, limit],
  );
  const row = res.rows[0]!;
  return { madeDue: row.made_due, remaining: Math.max(0, row.waiting - row.made_due) };
}
