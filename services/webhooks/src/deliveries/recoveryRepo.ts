import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

/** A recovery as stored under its request_id, to answer a repeated request. */
export interface RecoveryRow {
  receiver_id: string;
  since: Date;
  requeued: number;
  remaining: number;
}

/**
 * Failed (non-test) deliveries of a receiver created since `since`: a range of the partial
 * index deliveries_failed_receiver.
 */
export async function countFailedSince(db: Db, receiverId: string, since: Date): Promise<number> {
  const res = await db.query<{ n: number }>(
    `select count(*)::int as n from deliveries
     where receiver_id = $1 and status = 'failed' and not test and created_at >= $2`,
    [receiverId, since],
  );
  return res.rows[0]!.n;
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
    `select receiver_id, since, requeued, remaining from recoveries where request_id = $1`,
    [requestId],
  );
  return res.rows[0];
}

export async function storeRecoveryResult(
  db: PoolClient,
  requestId: string,
  result: { requeued: number; remaining: number },
): Promise<void> {
  await db.query(`update recoveries set requeued = $2, remaining = $3 where request_id = $1`, [
    requestId,
    result.requeued,
    result.remaining,
  ]);
}

/**
 * Re-queues up to `limit` of the receiver's failed (non-test) deliveries created since
 * `since`, oldest first, each due now with a fresh round of retries (the same delivery, so
 * the same event id; the attempt counter goes on). Their due times follow their age by a
 * microsecond each, so the worker sends them oldest first. Rows another transaction holds
 * are skipped (and counted as remaining). Returns how many it re-queued.
 */
export async function requeueFailedSince(
  db: PoolClient,
  receiverId: string,
  since: Date,
  limit: number,
): Promise<number> {
  const res = await db.query(
    `with picked as (
       select id, row_number() over (order by created_at, id) as n
       from (select id, created_at from deliveries
             where receiver_id = $1 and status = 'failed' and not test and created_at >= $2
             order by created_at, id limit $3 for update skip locked) oldest
     )
     update deliveries d set status = 'pending', round_start = d.attempts, lease_until = null,
       completed_at = null, next_attempt_at = now() + picked.n * interval '1 microsecond'
     from picked where d.id = picked.id`,
    [receiverId, since, limit],
  );
  return res.rowCount ?? 0;
}
