import type { Pool, PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { rfc3339 } from '@brand/shared/db';

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
}

/** What a worker needs to deliver: the URL and the sealed secret. */
export interface ReceiverTarget {
  id: string;
  url: string;
  enabled: boolean;
  secret_ciphertext: Buffer;
  secret_key_id: string;
}

type Db = Pool | PoolClient;

const COLUMNS = `id, brand_id, url, label, events, enabled, disabled_reason, last_status,
  ${rfc3339('last_delivery_at')} as last_delivery_at, failure_count,
  ${rfc3339('created_at')} as created_at, created_by`;

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
    `select count(*)::int as n from receivers where brand_id = $1`,
    [brandId],
  );
  return res.rows[0]!.n;
}

export async function selectReceiver(db: Db, id: string): Promise<ReceiverRow | undefined> {
  const res = await db.query<ReceiverRow>(`select ${COLUMNS} from receivers where id = $1`, [id]);
  return res.rows[0];
}

export async function selectReceiverTarget(
  db: Db,
  id: string,
): Promise<ReceiverTarget | undefined> {
  const res = await db.query<ReceiverTarget>(
    `select id, url, enabled, secret_ciphertext, secret_key_id from receivers where id = $1`,
    [id],
  );
  return res.rows[0];
}

export async function selectReceivers(db: Db, brandId: string): Promise<ReceiverRow[]> {
  const res = await db.query<ReceiverRow>(
    `select ${COLUMNS} from receivers where brand_id = $1 order by created_at desc, id desc`,
    [brandId],
  );
  return res.rows;
}

/** Sets the given fields only; enabling clears the disabled state and the failure streak. */
export async function updateReceiver(
  db: Db,
  id: string,
  changes: {
    url: string | undefined;
    label: string | undefined;
    events: EventTypeName[] | undefined;
    enabled: boolean | undefined;
  },
): Promise<ReceiverRow | undefined> {
  const res = await db.query<ReceiverRow>(
    `update receivers set
       url = coalesce($2::text, url),
       label = coalesce($3::text, label),
       events = coalesce($4::text[], events),
       enabled = coalesce($5::boolean, enabled),
       disabled_reason = case when $5::boolean is null then disabled_reason
                              when $5::boolean then null else 'disabled by an owner' end,
       failure_count = case when $5::boolean and not enabled then 0 else failure_count end,
       failing_since = case when $5::boolean and not enabled then null else failing_since end,
       updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [
      id,
      changes.url ?? null,
      changes.label ?? null,
      changes.events ?? null,
      changes.enabled ?? null,
    ],
  );
  return res.rows[0];
}

export async function deleteReceiver(db: Db, id: string): Promise<ReceiverRow | undefined> {
  const res = await db.query<ReceiverRow>(
    `delete from receivers where id = $1 returning ${COLUMNS}`,
    [id],
  );
  return res.rows[0];
}

/** Disables a receiver (410, 5 days without a 2xx) with the reason shown to owners. */
export async function disableReceiver(db: Db, id: string, reason: string): Promise<void> {
  await db.query(
    `update receivers set enabled = false, disabled_reason = $2, updated_at = now()
     where id = $1 and enabled`,
    [id, reason],
  );
}

/**
 * Records an attempt's outcome on the receiver: last status and time always; for real
 * (non-test) deliveries a 2xx ends the failure streak and a failure extends it. Returns
 * when the streak began, so the caller can apply the 5-day rule.
 */
export async function recordReceiverOutcome(
  db: Db,
  id: string,
  outcome: { status: number | null; ok: boolean; test: boolean },
): Promise<{ failing_since: Date | null } | undefined> {
  const res = await db.query<{ failing_since: Date | null }>(
    `update receivers set
       last_status = $2::int,
       last_delivery_at = now(),
       failure_count = case when $4::boolean then failure_count when $3::boolean then 0 else failure_count + 1 end,
       failing_since = case when $4::boolean then failing_since when $3::boolean then null
                            else coalesce(failing_since, now()) end
     where id = $1 returning failing_since`,
    [id, outcome.status, outcome.ok, outcome.test],
  );
  return res.rows[0];
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
