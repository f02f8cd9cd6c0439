import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';
import type { DeliveryStatusName } from '../claim/claimRepo';
import { insertNotice } from '../notices/noticeWriter';

/** A pending rotation as the admin RPCs show it (never a secret), with its latest Test. */
export interface RotationView {
  created_at: string;
  switch_at: string | null;
  created_by: string;
  test_delivery_id: string | null;
  test: {
    status: DeliveryStatusName;
    last_status: number | null;
    last_error: string | null;
  } | null;
}

/** A receiver as the admin RPCs show it (no secret). */
export interface ReceiverRow {
  id: string;
  brand_id: string;
  url: string;
  label: string;
  events: EventTypeName[];
  enabled: boolean;
  disabled_reason: string | null;
  last_status: number | null;
  last_delivery_at: string | null;
  failure_count: number;
  created_at: string;
  created_by: string;
  failing_since: string | null;
  last_error: string | null;
  disabled_by_service: boolean;
  disabled_at: string | null;
  /** Null when none is pending, or once its switch time has come (the new secret is in force). */
  rotation: RotationView | null;
  /** Deliveries not yet delivered (pending, not test), counted up to WAITING_COUNT_CAP. */
  waiting: number;
  /** When the oldest of them was created; null when none waits. */
  oldest_waiting_at: string | null;
  /** When its settings or rotation last changed (deliveries leave it): a change's precondition. */
  updated_at: string;
}

/** Waiting deliveries are counted up to this many: a receiver's page stays one bounded read. */
const WAITING_COUNT_CAP = 10_000;

type Db = Pool | PoolClient;

/**
 * A rotation is shown while its new secret is not in force yet: once its switch time has
 * come, attempts are signed with the new secret (signingSecret.ts) even before the sweep
 * moves it into place, so it is shown as switched.
 */
const ROTATION_PENDING = `(pending_secret_ciphertext is not null
  and (rotation_switch_at is null or rotation_switch_at > now()))`;

/**
 * The receiver columns, usable in SELECT and RETURNING alike (the rotation's Test is a
 * scalar subquery on the row's own rotation_test_delivery_id).
 */
const COLUMNS = `id, brand_id, url, label, events, enabled, disabled_reason, last_status,
  ${rfc3339('last_delivery_at')} as last_delivery_at, failure_count,
  ${rfc3339('created_at')} as created_at, created_by,
  ${rfc3339('failing_since')} as failing_since, last_error, disabled_by_service,
  ${rfc3339('disabled_at')} as disabled_at, ${rfc3339('updated_at')} as updated_at,
  case when ${ROTATION_PENDING} then json_build_object(
    'created_at', ${rfc3339('rotation_created_at')},
    'switch_at', ${rfc3339('rotation_switch_at')},
    'created_by', rotation_created_by,
    'test_delivery_id', rotation_test_delivery_id,
    'test', (select json_build_object('status', t.status, 'last_status', t.last_status,
                                      'last_error', t.last_error)
             from deliveries t where t.id = rotation_test_delivery_id)
  ) end as rotation,
  (select count(*)::int from (select 1 from deliveries w
     where w.receiver_id = receivers.id and w.status = 'pending' and not w.test
     limit ${WAITING_COUNT_CAP}) capped) as waiting,
  (select ${rfc3339('w.created_at')} from deliveries w
     where w.receiver_id = receivers.id and w.status = 'pending' and not w.test
     order by w.created_at, w.id limit 1) as oldest_waiting_at`;

export async function insertReceiver(
  db: Db,
  r: {
    id: string;
    brandId: string;
    url: string;
    label: string;
    events: EventTypeName[];
    ciphertext: Buffer;
    keyId: string;
    createdBy: string;
  },
): Promise<ReceiverRow> {
  const res = await db.query<ReceiverRow>(
    `insert into receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
    [r.id, r.brandId, r.url, r.label, r.events, r.ciphertext, r.keyId, r.createdBy],
  );
  return res.rows[0]!;
}

/**
 * Takes a transaction-scoped advisory lock on the brand, so two concurrent AddReceiver
 * calls cannot both pass the per-brand maximum.
 */
export async function lockBrand(db: PoolClient, brandId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtext('webhooks.receivers:' || $1))`, [brandId]);
}

export async function countReceivers(db: Db, brandId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    // webhook receivers only: audit streams are receivers rows of other kinds (issue 63)
    `select count(*)::int as n from receivers where brand_id = $1 and kind = 'webhook'`,
    [brandId],
  );
  return res.rows[0]!.n;
}

export async function selectReceiver(db: Db, id: string): Promise<ReceiverRow | undefined> {
  const res = await db.query<ReceiverRow>(`select ${COLUMNS} from receivers where id = $1`, [id]);
  return res.rows[0];
}

export async function selectReceivers(db: Db, brandId: string): Promise<ReceiverRow[]> {
  const res = await db.query<ReceiverRow>(
    `select ${COLUMNS} from receivers where brand_id = $1 and kind = 'webhook'
     order by created_at desc, id desc`,
    [brandId],
  );
  return res.rows;
}

/**
 * Sets the given fields only. Disabling records the time (by a person: no notice is sent);
 * enabling clears the disabled state and the failure streak. Given `ifUpdatedAt`, only onto the
 * receiver with that updated_at: the statement waits for a change in flight and then compares its
 * result (READ COMMITTED reads the row again under its lock), so undefined (nothing written) when
 * it changed since; the caller tells that from a receiver that is gone.
 */
export async function updateReceiver(
  db: Db,
  id: string,
  changes: {
    url: string | undefined;
    label: string | undefined;
    events: EventTypeName[] | undefined;
    enabled: boolean | undefined;
  },
  ifUpdatedAt?: string,
): Promise<ReceiverRow | undefined> {
  const res = await db.query<ReceiverRow>(
    `update receivers set
       url = coalesce($2::text, url),
       label = coalesce($3::text, label),
       events = coalesce($4::text[], events),
       enabled = coalesce($5::boolean, enabled),
       disabled_reason = case when $5::boolean is null then disabled_reason
                              when $5::boolean then null else 'disabled by an owner' end,
       disabled_by_service = case when $5::boolean is null then disabled_by_service else false end,
       disabled_at = case when $5::boolean is null then disabled_at
                          when $5::boolean then null
                          when enabled then now() else disabled_at end,
       failure_count = case when $5::boolean and not enabled then 0 else failure_count end,
       failing_since = case when $5::boolean and not enabled then null else failing_since end,
       last_error = case when $5::boolean and not enabled then null else last_error end,
       failing_alerted_at = case when $5::boolean and not enabled then null else failing_alerted_at end,
       updated_at = now()
     where id = $1 and ($6::text is null or ${rfc3339('updated_at')} = $6::text)
     returning ${COLUMNS}`,
    [
      id,
      changes.url ?? null,
      changes.label ?? null,
      changes.events ?? null,
      changes.enabled ?? null,
      ifUpdatedAt ?? null,
    ],
  );
  return res.rows[0];
}

export async function deleteReceiver(db: Db, id: string): Promise<ReceiverRow | undefined> {
  // Its deliveries go by the foreign key's cascade; attempts and their detail have no key to
  // the partitioned deliveries (migrations/0012), so they go here, partition by partition.
  const res = await db.query<ReceiverRow>(
    `with gone as (
       select id, event_at from deliveries where receiver_id = $1
     ), detail as (
       delete from attempt_details x using gone
       where x.delivery_id = gone.id and x.event_at = gone.event_at
     ), attempt as (
       delete from attempts a using gone where a.delivery_id = gone.id and a.event_at = gone.event_at
     )
     delete from receivers where id = $1 returning ${COLUMNS}`,
    [id],
  );
  return res.rows[0];
}

/**
 * The service disables a receiver (410, or no 2xx within the failure window) with the reason
 * shown to owners, and writes the notice that the console mails to the brand's owners, in
 * the one statement (so in the caller's transaction): one notice per disable. Returns the
 * receiver's brand and label when this call disabled it, undefined when it already was.
 */
export async function disableReceiverByService(
  db: Db,
  id: string,
  why: { reason: string; lastError: string; noticeId: string },
): Promise<{ brand_id: string; label: string } | undefined> {
  const res = await db.query<{ brand_id: string; label: string }>(
    `with disabled as (
       update receivers set enabled = false, disabled_reason = $2, disabled_by_service = true,
         disabled_at = now(), updated_at = now()
       where id = $1 and enabled
       returning id, brand_id, label, url, disabled_at, failing_since, last_error, failure_count
     ), notice as (
       ${insertNotice(
         'disabled',
         {
           id: '$3',
           brandId: 'brand_id',
           receiverId: 'id',
           label: 'label',
           url: 'url',
           disabledAt: 'disabled_at',
           failingSince: 'coalesce(failing_since, disabled_at)',
           reason: '$2',
           lastError: '$4',
           failures: 'failure_count',
         },
         'disabled',
       )}
     )
     select brand_id, label from disabled`,
    [id, why.reason, why.noticeId, why.lastError],
  );
  return res.rows[0];
}

/** A receiver's run of failures as an attempt's outcome left it. */
export interface FailureStreak {
  failing_since: Date | null;
  failure_count: number;
  /** When this run's failing alert was written; null while none was. */
  failing_alerted_at: Date | null;
}

/** The streak after an attempt, and whether the attempt counted at all. */
export interface RecordedOutcome extends FailureStreak {
  /**
   * The attempt was of an event type the receiver no longer selects (typeNotSelected): it
   * counted as a Test does, never against the receiver.
   */
  type_not_selected: boolean;
}

/**
 * Why a delivery of an event type its receiver no longer selects is failed (the delivery log
 * shows it): the receiver, which accepts only the types it is configured with, would refuse it,
 * and that refusal is not the receiver's failure.
 */
export const TYPE_NOT_SELECTED = 'event type no longer selected by the receiver';

/**
 * SQL, true when the receivers row in scope (unqualified columns, or `r.` with `alias`) does not
 * select the event type `type` (an SQL expression). An audit stream (another kind) selects no
 * types: its deliveries carry runs of entries, never an event type of its choosing.
 */
export const typeNotSelected = (type: string, alias = ''): string =>
  `(${alias}kind = 'webhook' and not (${type} = any(${alias}events)))`;

/**
 * Records an attempt's outcome on the receiver: last status and time always; for real
 * (non-test) deliveries a 2xx ends the failure streak and a failure extends it, with the
 * failure in words as last_error. A delivery of a type the receiver no longer selects
 * (`eventType`; one stored by an ingest that read the receiver's selection a moment before an
 * owner narrowed it) counts as a Test does: never against the receiver. Returns the streak, so
 * the caller can apply the alert threshold and the 5-day rule.
 */
export async function recordReceiverOutcome(
  db: Db,
  id: string,
  outcome: {
    status: number | null;
    ok: boolean;
    test: boolean;
    error: string | null;
    eventType: string;
  },
): Promise<RecordedOutcome | undefined> {
  const uncounted = `($4::boolean or ${typeNotSelected('$6::text')})`;
  const res = await db.query<RecordedOutcome>(
    `update receivers set
       last_status = $2::int,
       last_delivery_at = now(),
       failure_count = case when ${uncounted} then failure_count when $3::boolean then 0 else failure_count + 1 end,
       failing_since = case when ${uncounted} then failing_since when $3::boolean then null
                            else coalesce(failing_since, now()) end,
       last_error = case when ${uncounted} then last_error when $3::boolean then null else $5::text end,
       failing_alerted_at = case when ${uncounted} or not $3::boolean then failing_alerted_at end
     where id = $1
     returning failing_since, failure_count, failing_alerted_at,
       ${typeNotSelected('$6::text')} as type_not_selected`,
    [id, outcome.status, outcome.ok, outcome.test, outcome.error, outcome.eventType],
  );
  return res.rows[0];
}

/**
 * The owners' one alert of this run of failures: marks the run alerted and writes the
 * "failing" notice that the console mails them, in one statement (so in the caller's
 * transaction, with the failure that crossed the threshold). Nothing when the run was
 * alerted already. Returns whether this call wrote it.
 */
export async function alertFailingReceiver(db: Db, id: string, noticeId: string): Promise<boolean> {
  const res = await db.query(
    `with alerted as (
       update receivers set failing_alerted_at = now()
       where id = $1 and failing_alerted_at is null and failing_since is not null and enabled
       returning id, brand_id, label, url, failing_since, last_error, failure_count
     )
     ${insertNotice(
       'failing',
       {
         id: '$2',
         brandId: 'brand_id',
         receiverId: 'id',
         label: 'label',
         url: 'url',
         failingSince: 'failing_since',
         reason: `'failing'`,
         lastError: `coalesce(last_error, '')`,
         failures: 'failure_count',
       },
       'alerted',
     )}`,
    [id, noticeId],
  );
  return res.rowCount === 1;
}

/** Why the deliveries pending at an owner's disabling are failed (the delivery log shows it). */
export const DISABLED_BY_OWNER = 'receiver disabled by an owner';
/** The same for an audit stream (a receiver of another kind). */
export const STREAM_DISABLED_BY_OWNER = 'audit stream disabled by an owner';

/**
 * Fails, at most `limit` at a time, the pending deliveries of disabled receivers: those a
 * disabling could not see. The consumer picks a brand's enabled receivers when it stores an
 * event and inserts their deliveries in the same transaction; a disabling that commits between
 * the two fails the deliveries it sees (failPendingDeliveries), not one still uncommitted, and
 * the claim skips disabled receivers, so such a delivery waited for ever and kept its week of
 * history from being dropped (a review, 2026-11-29). The maintenance sweep calls this.
 */
export async function failStrandedDeliveries(db: Db, limit: number): Promise<number> {
  const res = await db.query(
    `update deliveries d set status = 'failed', last_error = s.why, completed_at = now(),
            lease_until = null
       from (select p.id, p.event_at,
                    case when r.disabled_by_service
                      then 'receiver disabled by the service: ' || coalesce(r.disabled_reason, '')
                      when r.kind <> 'webhook' then $3
                      else $2 end as why
               from receivers r
               join deliveries p on p.receiver_id = r.id and p.status = 'pending'
              where not r.enabled
              limit $1) s
      where d.id = s.id and d.event_at = s.event_at and d.status = 'pending'`,
    [limit, DISABLED_BY_OWNER, STREAM_DISABLED_BY_OWNER],
  );
  return res.rowCount ?? 0;
}

/**
 * Fails the pending deliveries of a receiver whose types it no longer selects (an owner just
 * narrowed its events, in this transaction): visibly failed with TYPE_NOT_SELECTED, never sent
 * again (the receiver would refuse them, and each refusal counted against it), and not the
 * receiver's failure (its run of failures is left as it is). The receiver row is the caller's
 * (updated in this transaction): a Resend or a recovery of the receiver waits on its lock.
 * Returns how many.
 */
export async function failUnselectedDeliveries(db: Db, receiverId: string): Promise<number> {
  const res = await db.query(
    `update deliveries d set status = 'failed', last_error = $2, completed_at = now(),
       lease_until = null
     from receivers r
     where r.id = $1 and d.receiver_id = $1 and d.status = 'pending'
       and ${typeNotSelected('d.event_type', 'r.')}`,
    [receiverId, TYPE_NOT_SELECTED],
  );
  return res.rowCount ?? 0;
}

/**
 * Fails every pending delivery of a receiver that was disabled: visibly failed, not lost.
 * Part of disabling a receiver (by an owner or after a failure streak), so it stands here.
 */
export async function failPendingDeliveries(
  db: Db,
  receiverId: string,
  reason: string,
): Promise<number> {
  const res = await db.query(
    `update deliveries set status = 'failed', last_error = $2, completed_at = now(), lease_until = null
     where receiver_id = $1 and status = 'pending'`,
    [receiverId, reason],
  );
  return res.rowCount ?? 0;
}
