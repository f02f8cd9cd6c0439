import type { Pool, PoolClient } from '@brand/shared/db';
import { emptyLatency, healthBucketStart, healthUpsertSql } from '../health/healthRepo';
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
 * Successful attempts, any number, in ONE statement (one round trip, atomic as a
 * transaction): each attempt row with its detail, each delivery succeeded (lease released),
 * each receiver's health bucket counted once for all its attempts here, and each receiver's
 * last status and delivery time with its failure streak cleared (test deliveries leave the
 * streak and health as they are). Exactly what insertAttempt + finishAttempt +
 * recordReceiverOutcome write for each 2xx; a success can never disable a receiver, so
 * nothing else follows. The receivers are locked first, in id order (the one lock order:
 * receiver, then its bucket; several in id order), so batches of any two workers and a
 * failure's transaction cannot deadlock. An attempt whose delivery was removed meanwhile
 * (its receiver deleted) is skipped. Written a batch at a time by SuccessBatcher: at 1,000
 * deliveries a second, one statement per delivery locked each receiver's row and bucket a
 * thousand times a second (BENCHMARKS.md, "S6: where the queue was").
 */
export async function recordSucceededAttempts(db: Db, attempts: AttemptRecord[]): Promise<void> {
  const health = healthCounts(attempts);
  const receivers = receiverOutcomes(attempts);
  await db.query({
    name: 'webhooks.record-succeeded-attempts',
    text: `with input as (
       select * from unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[],
         $6::text[], $7::jsonb[], $8::jsonb[], $9::text[], $10::boolean[], $11::bigint[])
         as i(delivery_id, number, started_at, duration_ms, status_code, excerpt,
              request_headers, response_headers, response_body, truncated, body_bytes)
     ), receiver as (
       select id from receivers where id = any($12::text[]) order by id for no key update
     ), attempt as (
       insert into attempts (delivery_id, number, started_at, duration_ms, status_code,
         error_class, excerpt, error_message)
       select i.delivery_id, i.number, i.started_at, i.duration_ms, i.status_code, null,
         i.excerpt, null
       from input i join deliveries d on d.id = i.delivery_id
       on conflict do nothing
       returning delivery_id, number
     ), detail as (
       insert into attempt_details (delivery_id, number, request_headers, response_headers,
         response_body, response_body_truncated, response_body_bytes)
       select a.delivery_id, a.number, i.request_headers, i.response_headers, i.response_body,
         i.truncated, i.body_bytes
       from attempt a join input i using (delivery_id, number)
     ), health as (
       insert into receiver_health as h (receiver_id, bucket_start, attempts, succeeded,
         failures, latency)
       select c.receiver_id, c.bucket_start, c.n, c.n, '{}'::jsonb, c.latency::int[]
       from unnest($15::text[], $16::timestamptz[], $17::int[], $18::text[])
         as c(receiver_id, bucket_start, n, latency)
       join receiver on receiver.id = c.receiver_id
       on conflict (receiver_id, bucket_start) do update set
         attempts = h.attempts + excluded.attempts,
         succeeded = h.succeeded + excluded.succeeded,
         latency = array(select h.latency[k] + excluded.latency[k]
                         from generate_subscripts(h.latency, 1) k order by k)
     ), delivery as (
       update deliveries d set attempts = i.number, status = 'succeeded', lease_until = null,
         last_status = i.status_code, last_error = null, completed_at = now()
       from input i where d.id = i.delivery_id
     )
     update receivers r set
       last_status = o.last_status,
       last_delivery_at = now(),
       failure_count = case when o.counted then 0 else r.failure_count end,
       failing_since = case when o.counted then null else r.failing_since end,
       last_error = case when o.counted then null else r.last_error end
     from unnest($12::text[], $13::int[], $14::boolean[]) as o(receiver_id, last_status, counted)
     join receiver on receiver.id = o.receiver_id
     where r.id = o.receiver_id`,
    values: [
      attempts.map((a) => a.deliveryId),
      attempts.map((a) => a.number),
      attempts.map((a) => a.startedAt),
      attempts.map((a) => a.durationMs),
      attempts.map((a) => a.statusCode),
      attempts.map((a) => a.excerpt),
      attempts.map((a) => JSON.stringify(a.requestHeaders)),
      attempts.map((a) => JSON.stringify(a.response?.headers ?? [])),
      attempts.map((a) => a.response?.body ?? ''),
      attempts.map((a) => a.response?.truncated ?? false),
      attempts.map((a) => a.response?.bytes ?? -1),
      receivers.map((r) => r.receiverId),
      receivers.map((r) => r.lastStatus),
      receivers.map((r) => r.counted),
      health.map((c) => c.receiverId),
      health.map((c) => c.bucketStart),
      health.map((c) => c.attempts),
      health.map((c) => `{${c.latency.join(',')}}`),
    ],
  });
}

/** Per receiver: the status of its latest attempt, and whether any was not a test. */
function receiverOutcomes(
  attempts: AttemptRecord[],
): Array<{ receiverId: string; lastStatus: number | null; counted: boolean }> {
  const byReceiver = new Map<string, { latest: AttemptRecord; counted: boolean }>();
  for (const a of attempts) {
    const seen = byReceiver.get(a.receiverId);
    if (!seen) byReceiver.set(a.receiverId, { latest: a, counted: !a.test });
    else {
      if (a.startedAt >= seen.latest.startedAt) seen.latest = a;
      seen.counted ||= !a.test;
    }
  }
  return [...byReceiver].map(([receiverId, { latest, counted }]) => ({
    receiverId,
    lastStatus: latest.statusCode,
    counted,
  }));
}

/**
 * The health counts of successful attempts, one per receiver and bucket (an upsert may touch
 * a row once per statement): attempts and the latency histogram; tests are not counted.
 */
function healthCounts(
  attempts: AttemptRecord[],
): Array<{ receiverId: string; bucketStart: Date; attempts: number; latency: number[] }> {
  const counts = new Map<
    string,
    { receiverId: string; bucketStart: Date; attempts: number; latency: number[] }
  >();
  for (const a of attempts) {
    if (a.test) continue;
    const bucketStart = healthBucketStart(a.startedAt);
    const key = `${a.receiverId} ${bucketStart.getTime()}`;
    let c = counts.get(key);
    if (!c) {
      c = { receiverId: a.receiverId, bucketStart, attempts: 0, latency: emptyLatency() };
      counts.set(key, c);
    }
    c.attempts += 1;
    if (a.latencySlot !== null) c.latency[a.latencySlot - 1]! += 1;
  }
  return [...counts.values()];
}
