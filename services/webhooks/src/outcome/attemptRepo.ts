import { unseenArray, type Pool, type PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import { healthUpsertSql, healthValues } from '../health/healthRepo';
import type { DeliveryStatusName } from '../claim/claimRepo';
import type { Header } from '../send/responseBody';
import { insertNotice } from '../notices/noticeWriter';
import { CATCH_UP_CTES } from './catchUp';

type Db = Pool | PoolClient;

/** One attempt as it is recorded: the outcome, and its detail (kept for the retention). */
export interface AttemptRecord {
  deliveryId: string;
  /** The delivery's event_at (its partition key), exactly as the claim returned it. */
  eventAt: string;
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

/**
 * The attempts of one statement, their details and their health counts, as CTEs (the
 * primary key makes a replayed attempt number a no-op, and then its detail is not written
 * either): `input` holds the attempts ($1, one JSON array of attemptsValues' rows; event_at is
 * each delivery's, so every write names its partition), `receiver` locks their receivers ($2)
 * in id order before any health bucket (healthUpsertSql reads it, $3..$8):
 * the one lock order of every writer, or a success and a failure of one receiver deadlock,
 * each holding one of the two; several receivers in id order, so two statements cannot
 * either. A statement that also updates the receivers must read `receiver` in its main
 * query, so the locks are taken first: a row the statement has already updated cannot be
 * locked again by it (the CTE would come back empty).
 *
 * The lock is FOR NO KEY UPDATE, the lock the receiver's UPDATE itself takes: it orders the
 * writers of one receiver but, unlike FOR UPDATE, does not wait for the consumer's
 * transactions, whose delivery inserts hold FOR KEY SHARE on the receiver (the foreign key)
 * until their chunk commits. With FOR UPDATE every attempt waited out the ingest in flight,
 * and deliveries slowed to half while events arrived (S6 at 100 changes/s: 5-6 s queued).
 */
const ATTEMPTS_CTES = `input as (
    select * from json_to_recordset($1::json)
      as i(delivery_id text, number int, started_at timestamptz, duration_ms int,
           status_code int, error_class text, excerpt text, error_message text,
           request_headers jsonb, response_headers jsonb, response_body text, truncated boolean,
           body_bytes bigint, event_at timestamptz)
  ), receiver as (
    select id, brand_id, label, url, failure_count, failing_since, failing_alerted_at, last_error
    from receivers where id = any(${unseenArray(2, 'text[]')}) order by id for no key update
  ), attempt as (
    insert into attempts (delivery_id, number, event_at, started_at, duration_ms, status_code,
      error_class, excerpt, error_message)
    select delivery_id, number, event_at, started_at, duration_ms, status_code, error_class,
      excerpt, error_message
    from input
    on conflict do nothing
    returning delivery_id, number, event_at
  ), detail as (
    insert into attempt_details (delivery_id, number, event_at, request_headers,
      response_headers, response_body, response_body_truncated, response_body_bytes)
    select a.delivery_id, a.number, a.event_at, i.request_headers, i.response_headers,
      i.response_body, i.truncated, i.body_bytes
    from attempt a join input i using (delivery_id, number, event_at)
  ), health as (
    ${healthUpsertSql(3, 'receiver')}
  )`;

/**
 * ATTEMPTS_CTES' values $1..$8 for `attempts` of `receiverIds`. The attempts travel as one
 * JSON text that PostgreSQL reads as rows (json_to_recordset): fourteen parallel arrays cost
 * the worker pg's array literals, every element quoted and escaped, about twice the time of
 * one JSON.stringify (BENCHMARKS.md, issue 46).
 */
function attemptsValues(attempts: readonly AttemptRecord[], receiverIds: string[]): unknown[] {
  return [
    JSON.stringify(
      attempts.map((a) => ({
        delivery_id: a.deliveryId,
        number: a.number,
        started_at: a.startedAt,
        duration_ms: a.durationMs,
        status_code: a.statusCode,
        error_class: a.errorClass,
        excerpt: a.excerpt,
        error_message: a.errorMessage,
        request_headers: a.requestHeaders,
        response_headers: a.response?.headers ?? [],
        response_body: a.response?.body ?? '',
        truncated: a.response?.truncated ?? false,
        body_bytes: a.response?.bytes ?? -1,
        event_at: a.eventAt,
      })),
    ),
    receiverIds,
    ...healthValues(attempts),
  ];
}

/** Records one failed attempt with its detail and health count (in the caller's transaction). */
export async function insertAttempt(db: Db, a: AttemptRecord): Promise<void> {
  await db.query({
    name: 'webhooks.insert-attempt',
    text: `with ${ATTEMPTS_CTES} select 1`,
    values: attemptsValues([a], [a.receiverId]),
  });
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
    /** The delivery's event_at as the claim returned it: the write touches one partition. */
    eventAt: string;
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
     where d.id = $1 and d.event_at = $7::timestamptz`,
    [d.id, d.attempts, d.status, d.nextAttemptAt ?? null, d.lastStatus, d.lastError, d.eventAt],
  );
}

/**
 * Successful attempts, any number, in ONE statement (one round trip, atomic as a
 * transaction): each attempt row with its detail, each delivery succeeded (lease released),
 * each receiver's health bucket counted once for all its attempts here, and each receiver's
 * last status and delivery time with its failure streak cleared (test deliveries leave the
 * streak and health as they are). Exactly what insertAttempt + finishAttempt +
 * recordReceiverOutcome write for each 2xx; a success can never disable a receiver.
 *
 * A 2xx to a failing receiver (a delivery, a retry or a Test) starts its catch-up
 * (catchUp.ts; $11 is each receiver's activity id). A 2xx that ends a run of failures the
 * owners were alerted to writes the "recovered" notice ($12: an id per receiver) and clears
 * the alert.
 *
 * Locks are taken as ATTEMPTS_CTES says, so batches of two workers and a failure's
 * transaction cannot deadlock. An attempt whose delivery was removed meanwhile (its receiver
 * deleted) fails the statement on the foreign key; the group commit (db/groupCommit.ts) then writes each attempt
 * alone, so only that one fails. A receiver's row is rewritten only when the success changes
 * it, or its last_delivery_at is more than a second old: while a receiver takes hundreds of
 * deliveries a second its row was rewritten with each batch, and every claim, ingest and lock
 * of it walked the dead versions (a receiver lookup took 0.26 ms of a 6 ms claim; issue 36). At 1,000 deliveries a second, one statement per delivery
 * locked each receiver's row and bucket a thousand times a second (BENCHMARKS.md).
 *
 * The deliveries are found by key (`id = any(...)` beside the join to the input): joined to
 * the JSON input alone, whose length the planner cannot see (it assumes 100 rows), the update
 * read the whole week partition until it held about 100,000 deliveries, 2.0 of the
 * statement's 2.7 ms at 8,000 (delivery.successByKey.test.ts).
 */
export async function recordSucceededAttempts(db: Db, attempts: AttemptRecord[]): Promise<void> {
  const receivers = receiverOutcomes(attempts);
  await db.query({
    name: 'webhooks.record-succeeded-attempts',
    text: `with ${ATTEMPTS_CTES}, delivery as (
       update deliveries d set attempts = i.number, status = 'succeeded', lease_until = null,
         last_status = i.status_code, last_error = null, completed_at = now()
       from input i where d.id = i.delivery_id and d.event_at = i.event_at
         and d.id = any(array(select delivery_id from input))
     ), outcome as (
       select * from unnest(${unseenArray(2, 'text[]')}, ${unseenArray(9, 'int[]')},
         ${unseenArray(10, 'boolean[]')}, ${unseenArray(11, 'text[]')}, ${unseenArray(12, 'text[]')})
         as o(receiver_id, last_status, counted, activity_id, notice_id)
     ), ${CATCH_UP_CTES}, recovered as (
       ${insertNotice(
         'recovered',
         {
           id: 'o.notice_id',
           brandId: 'rc.brand_id',
           receiverId: 'rc.id',
           label: 'rc.label',
           url: 'rc.url',
           failingSince: 'rc.failing_since',
           reason: `'answered 2xx again'`,
           lastError: `coalesce(rc.last_error, '')`,
           failures: 'rc.failure_count',
         },
         `receiver rc join outcome o on o.receiver_id = rc.id
       where o.counted and rc.failing_alerted_at is not null`,
       )}
     )
     update receivers r set
       last_status = o.last_status,
       last_delivery_at = now(),
       failure_count = case when o.counted then 0 else r.failure_count end,
       failing_since = case when o.counted then null else r.failing_since end,
       last_error = case when o.counted then null else r.last_error end,
       failing_alerted_at = case when o.counted then null else r.failing_alerted_at end
     from outcome o
     join receiver on receiver.id = o.receiver_id
     where r.id = o.receiver_id
       and (r.last_status is distinct from o.last_status
         or r.last_delivery_at is null or r.last_delivery_at < now() - interval '1 second'
         or o.counted and (r.failure_count <> 0 or r.failing_since is not null
           or r.last_error is not null or r.failing_alerted_at is not null))`,
    values: [
      ...attemptsValues(
        attempts,
        receivers.map((r) => r.receiverId),
      ),
      receivers.map((r) => r.lastStatus),
      receivers.map((r) => r.counted),
      receivers.map(() => newId('activity')),
      receivers.map(() => newId('receiverNotice')),
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
