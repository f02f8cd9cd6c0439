import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';
import { traceContextOf, type StoredTraceContext } from '@brand/shared/telemetry';

/** An outbox row as the relay publishes it, with the trace context of its change. */
export interface OutboxRow extends StoredTraceContext {
  id: string;
  brand_id: string;
  type: EventTypeName;
  /** The record's public JSON, exactly as written (BusinessEvent.object_json). */
  payload: string;
  /** RFC 3339, UTC, microseconds. */
  created_at: string;
}

/**
 * Inserts an event in the caller's transaction (it commits or rolls back with the change).
 * Returns its created_at, which is the transaction's now(): the same instant as the
 * record's updated_at. The insert trigger NOTIFYs "outbox" at commit. The active span's
 * trace context (the admin RPC's, when traced) is stored with the row, so the relay's
 * publish span continues the change's trace.
 */
export async function insertOutboxEvent(
  client: PoolClient,
  event: { id: string; brandId: string; type: EventTypeName; payload: string },
): Promise<{ created_at: string }> {
  const trace = traceContextOf();
  const res = await client.query<{ created_at: string }>(
    `insert into outbox (id, brand_id, type, payload, traceparent, tracestate)
     values ($1, $2, $3, $4::json, $5, $6)
     returning ${rfc3339('created_at')} as created_at`,
    [event.id, event.brandId, event.type, event.payload, trace.traceparent, trace.tracestate],
  );
  return res.rows[0]!;
}

/**
 * How far into the queue a claim looks for brands it may take: a brand whose events fill the head
 * while another relay holds it leaves this many rows' worth of other brands to this one.
 */
const HEAD_ROWS_PER_CLAIMED = 4;

/**
 * Claims up to `limit` unpublished rows not set aside, oldest first, locked until the caller's
 * transaction ends. Several relays (records replicas) share the work by brand: a claim first takes
 * the advisory lock of each brand among the oldest rows that it can, once per brand, then the
 * oldest rows of those brands, so one brand's events are on one relay at a time and leave in
 * order. A brand another relay holds is left until that relay's transaction ends.
 *
 * Trying the brand's lock row by row as the rows are scanned (with `skip locked`), as this did
 * before, let a brand's events overtake one another: a brand whose lock came free part-way
 * through the scan (another replica committing) was passed over for its older rows and taken for
 * later ones, and a row locked by anything else at that instant (a failed batch's attempts
 * recorded after its rollback, an operator's statement) was skipped. Its rows are locked with a
 * wait instead: only this relay may claim them now, and others hold a row briefly. Rows another
 * relay published after this statement's snapshot are seen as they are now and left out.
 */
export async function claimUnpublished(client: PoolClient, limit: number): Promise<OutboxRow[]> {
  const res = await client.query<OutboxRow>(
    `with head as materialized (
       select brand_id from outbox
       where published_at is null and set_aside_at is null
       order by seq
       limit $1 * ${HEAD_ROWS_PER_CLAIMED}
     ), held as materialized (
       select brand_id from (select distinct brand_id from head) brands
       where pg_try_advisory_xact_lock(hashtext('records.outbox'), hashtext(brand_id))
     )
     select id, brand_id, type, payload::text as payload,
       ${rfc3339('created_at')} as created_at, traceparent, tracestate
     from outbox
     where published_at is null
       and set_aside_at is null
       and brand_id in (select brand_id from held)
     order by seq
     limit $1
     for update`,
    [limit],
  );
  return res.rows;
}

/** Marks claimed rows published (in the claiming transaction, after the broker acknowledged). */
export async function markPublished(client: PoolClient, ids: string[]): Promise<void> {
  await client.query(
    'update outbox set published_at = now(), attempts = attempts + 1, last_error = null where id = any($1::text[])',
    [ids],
  );
}

/**
 * Sets a claimed row aside (in the claiming transaction): the broker refuses its event on its
 * own (over message.max.bytes), so it is never claimed again until an operator clears
 * `set_aside_at`; the rows behind it go on.
 */
export async function setOutboxRowAside(
  client: PoolClient,
  id: string,
  reason: string,
): Promise<void> {
  await client.query(
    `update outbox set set_aside_at = now(), set_aside_reason = left($2, 1000),
       attempts = attempts + 1, last_error = left($2, 500)
     where id = $1 and published_at is null`,
    [id, reason],
  );
}

/** Records a failed publish of these rows (outside the rolled-back claim), for operators. */
export async function recordPublishFailure(
  pool: Pool,
  ids: string[],
  error: string,
): Promise<void> {
  await pool.query(
    'update outbox set attempts = attempts + 1, last_error = left($2, 500) where id = any($1::text[])',
    [ids, error],
  );
}

/**
 * The backlog: how many events wait for the relay and how long the oldest has waited (0 when
 * none). Rows set aside wait for an operator instead: countSetAside.
 */
export async function selectBacklog(
  pool: Pool,
): Promise<{ count: number; oldest_age_seconds: number }> {
  const res = await pool.query<{ count: number; oldest_age_seconds: number }>(
    `select count(*)::int as count,
       coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_age_seconds
     from outbox where published_at is null and set_aside_at is null`,
  );
  return res.rows[0]!;
}

/** How many events are set aside (the broker refuses each on its own) and wait to be mended. */
export async function countSetAside(pool: Pool): Promise<number> {
  const res = await pool.query<{ n: number }>(
    'select count(*)::int as n from outbox where set_aside_at is not null and published_at is null',
  );
  return res.rows[0]!.n;
}
