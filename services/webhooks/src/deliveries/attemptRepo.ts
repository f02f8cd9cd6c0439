import type { Pool, PoolClient } from '@brand/shared/db';
import { healthUpsertSql } from '../health/healthRepo';
import type { DeliveryStatusName } from './deliveryRepo';
import type { Header } from './responseBody';

type Db = Pool | PoolClient;

/** One attempt as it is recorded: the outcome, and its detail (kept for the retention). */
export interface AttemptRecord {
  deliveryId: string;
  receiverId: string;
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  errorClass: string | null;
  /** The failure in words; null on success. */
  errorMessage: string | null;
  excerpt: string | null;
  test: boolean;
  /** The health class of a failure (healthClass); null on success. */
  healthClass: string | null;
  /** The latency slot when a response came (latencySlot); null otherwise. */
  latencySlot: number | null;
  requestHeaders: Header[];
  response: { headers: Header[]; body: string; truncated: boolean; bytes: number } | undefined;
}

/** The values of an AttemptRecord in the order of ATTEMPT_CTES' placeholders $1..$16. */
function attemptValues(a: AttemptRecord): unknown[] {
  return [
    a.deliveryId,
    a.number,
    a.startedAt,
    a.durationMs,
    a.statusCode,
    a.errorClass,
    a.excerpt,
    a.errorMessage,
    JSON.stringify(a.requestHeaders),
    JSON.stringify(a.response?.headers ?? []),
    a.response?.body ?? '',
    a.response?.truncated ?? false,
    a.response?.bytes ?? -1,
    a.receiverId,
    a.healthClass,
    a.latencySlot,
    a.test,
  ];
}

/**
 * The attempt row, its detail and its health count, as CTEs of one statement (the primary
 * key makes a replayed attempt number a no-op, and then its detail is not written either).
 * The receiver row is locked (the `receiver` CTE) before its health bucket, whose insert
 * reads that CTE: the order every writer keeps. Without it a success and a failure of one
 * receiver deadlocked, each holding one of the two. A statement that also updates the
 * receiver must read `receiver` in its main query, so the lock is taken first: a row the
 * statement has already updated cannot be locked again by it (the CTE would come back empty).
 * A receiver removed meanwhile gets no count.
 *
 * The lock is FOR NO KEY UPDATE, the lock the receiver's UPDATE itself takes: it orders the
 * writers of one receiver but, unlike FOR UPDATE, does not wait for the consumer's
 * transactions, whose delivery inserts hold FOR KEY SHARE on the receiver (the foreign key)
 * until their chunk commits. With FOR UPDATE every attempt waited out the ingest in flight,
 * and deliveries slowed to half while events arrived (S6 at 100 changes/s: 5-6 s queued).
 */
const ATTEMPT_CTES = `receiver as (
    select id from receivers where id = $14 for no key update
  ), attempt as (
    insert into attempts (delivery_id, number, started_at, duration_ms, status_code, error_class,
      excerpt, error_message)
    values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing
    returning delivery_id, number
  ), detail as (
    insert into attempt_details (delivery_id, number, request_headers, response_headers,
      response_body, response_body_truncated, response_body_bytes)
    select delivery_id, number, $9::jsonb, $10::jsonb, $11, $12, $13 from attempt
  ), health as (
    ${healthUpsertSql({ from: 'from receiver', receiverId: 'receiver.id', at: '$3', ok: '($6::text is null)', failureClass: '$15', slot: '$16', test: '$17' })}
  )`;

/** Records one failed attempt with its detail and health count (in the caller's transaction). */
export async function insertAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await db.query(`with ${ATTEMPT_CTES} select 1`, attemptValues(a));
}

/**
 * Stores an attempt's result and releases the lease: `next` is the time of the next
 * attempt (still pending), or undefined when the delivery is finished with `status`. A
 * delivery that stopped being pending while the attempt was in flight (its receiver was
 * disabled, which fails its pending deliveries) keeps that state and its reason: only the
 * attempt count and last status follow the attempt, so a disabled receiver never shows a
 * delivery waiting to retry, and Recover since finds it among the failed.
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
    `update deliveries d set attempts = $2, lease_until = null, last_status = $5::int,
       status = case when d.status = 'pending' then $3::text else d.status end,
       next_attempt_at = case when d.status = 'pending'
         then coalesce($4::timestamptz, d.next_attempt_at) else d.next_attempt_at end,
       last_error = case when d.status = 'pending' then $6::text else d.last_error end,
       completed_at = case when d.status <> 'pending' then d.completed_at
         when $3::text = 'pending' then null else now() end
     where d.id = $1`,
    [d.id, d.attempts, d.status, d.nextAttemptAt ?? null, d.lastStatus, d.lastError],
  );
}

/**
 * A successful attempt in ONE statement (so one round trip, and atomic as a transaction):
 * the attempt row with its detail and health count, the delivery succeeded (lease
 * released), and the receiver's last status and delivery time with its failure streak
 * cleared (a test delivery leaves the streak as it is). Exactly what insertAttempt +
 * finishAttempt + recordReceiverOutcome write for a 2xx; a success can never disable a
 * receiver, so nothing else follows. Five round trips per delivery were most of the
 * worker's and PostgreSQL's CPU in the S6 benchmark.
 */
export async function recordSucceededAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await db.query({
    name: 'webhooks.record-succeeded-attempt',
    text: `with ${ATTEMPT_CTES}, delivery as (
       update deliveries set attempts = $2, status = 'succeeded', lease_until = null,
         last_status = $5::int, last_error = null, completed_at = now()
       where id = $1
     )
     update receivers r set
       last_status = $5::int,
       last_delivery_at = now(),
       failure_count = case when $17::boolean then r.failure_count else 0 end,
       failing_since = case when $17::boolean then r.failing_since else null end,
       last_error = case when $17::boolean then r.last_error else null end
     from receiver where r.id = receiver.id`,
    values: attemptValues(a),
  });
}
