import type { Pool, PoolClient } from '../db/pool';

type Db = Pool | PoolClient;

/**
 * The audit outbox every service that writes activity keeps in its own schema (records'
 * migration 0031, plans' 0004, webhooks' 0016): a trigger copies each activity row (and in
 * records each request-log row) into it in the writing transaction, and the relay
 * (auditRelay.ts) hands the rows on in order.
 */
export interface AuditOutboxRow {
  id: string;
  entry_id: string;
  brand_id: string;
  kind: 'activity' | 'request';
  /** The row as the trail shows it, JSON text. */
  row_json: string;
}

/**
 * Takes the relay's turn, or none: a transaction-level advisory lock per schema, so one relay of
 * a service hands rows on at a time (two would hand over interleaved batches out of order).
 */
export async function tryRelayLock(db: PoolClient): Promise<boolean> {
  const r = await db.query<{ ok: boolean }>(
    `select pg_try_advisory_xact_lock(hashtext(current_schema() || '.audit_relay')) as ok`,
  );
  return r.rows[0]?.ok === true;
}

/**
 * The oldest rows not set aside, in the order they were written (the id is the insert order;
 * migration "audit_outbox_set_aside" indexes them).
 */
export async function selectOutbox(db: Db, limit: number): Promise<AuditOutboxRow[]> {
  const r = await db.query<AuditOutboxRow>(
    `select id::text, entry_id, brand_id, kind, row_json::text
     from audit_outbox where set_aside_at is null order by id limit $1`,
    [limit],
  );
  return r.rows;
}

/**
 * Sets a row aside: the trail refused it on its own. It stays in the outbox (nothing is lost)
 * and the relay skips it from then on, across restarts, until an operator clears
 * `set_aside_at`.
 */
export async function setOutboxRowAside(db: Db, id: string, reason: string): Promise<void> {
  await db.query(
    `update audit_outbox set set_aside_at = now(), set_aside_reason = $2 where id = $1`,
    [id, reason.slice(0, 1_000)],
  );
}

/**
 * The outbox's backlog for /metrics, cheap at any size: rows waiting (not set aside), counted up
 * to `cap` (an index-bounded count; PostgreSQL runs without autovacuum here, so no statistics),
 * and the age of the oldest (by the primary key, 0 when none).
 */
export async function selectOutboxBacklog(
  db: Db,
  cap: number,
): Promise<{ waiting: number; oldest_age_seconds: number }> {
  const r = await db.query<{ waiting: number; oldest_age_seconds: number }>(
    `select (select count(*) from (select 1 from audit_outbox where set_aside_at is null
                                    limit $1) w)::int as waiting,
       coalesce((select greatest(extract(epoch from now() - created_at), 0) from audit_outbox
                  where set_aside_at is null order by id limit 1), 0)::float8 as oldest_age_seconds`,
    [cap],
  );
  return r.rows[0]!;
}

/** Rows set aside, counted up to `cap` (their own index). */
export async function countOutboxSetAside(db: Db, cap: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from (select 1 from audit_outbox where set_aside_at is not null
                                      limit $1) a`,
    [cap],
  );
  return r.rows[0]?.n ?? 0;
}

export async function deleteOutbox(db: Db, ids: readonly string[]): Promise<void> {
  await db.query(`delete from audit_outbox where id = any($1::bigint[])`, [ids]);
}

/** Rows no relay took for `olderThanMs` (no webhooks service configured), a batch at a time. */
export async function sweepOutbox(db: Db, olderThanMs: number, batch: number): Promise<number> {
  const r = await db.query(
    `delete from audit_outbox where id in (
       select id from audit_outbox
       where created_at < now() - make_interval(secs => $1::double precision / 1000)
       order by id limit $2)`,
    [olderThanMs, batch],
  );
  return r.rowCount ?? 0;
}
