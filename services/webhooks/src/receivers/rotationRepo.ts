import type { PoolClient } from '@brand/shared/db';
import type { SealedSecret } from '@brand/shared/secrets';
import { CANCELLED_ROTATION } from '../send/signingSecret';

/** A receiver locked for a rotation change, as the rotation rules need it. */
export interface LockedReceiver {
  id: string;
  brand_id: string;
  label: string;
  enabled: boolean;
  secret_version: number;
  /** A new secret is stored (its switch may have come due: see switch_due). */
  pending: boolean;
  /** The scheduled switch time has come; the new secret is in force. */
  switch_due: boolean;
  rotation_switch_at: string | null;
}

/** Locks one receiver row (FOR UPDATE) for the rest of the transaction. */
export async function lockReceiver(
  db: PoolClient,
  id: string,
): Promise<LockedReceiver | undefined> {
  const res = await db.query<LockedReceiver>(
    `select id, brand_id, label, enabled, secret_version,
       pending_secret_ciphertext is not null as pending,
       coalesce(rotation_switch_at <= now(), false) as switch_due,
       to_char(rotation_switch_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as rotation_switch_at
     from receivers where id = $1 for update`,
    [id],
  );
  return res.rows[0];
}

/** Stores a rotation's new secret beside the current one; no switch time yet. */
export async function startRotation(
  db: PoolClient,
  id: string,
  sealed: SealedSecret,
  createdBy: string,
): Promise<void> {
  await db.query(
    `update receivers set pending_secret_ciphertext = $2, pending_secret_key_id = $3,
       rotation_created_at = now(), rotation_created_by = $4, rotation_switch_at = null,
       rotation_test_delivery_id = null, updated_at = now()
     where id = $1`,
    [id, sealed.ciphertext, sealed.keyId, createdBy],
  );
}

/**
 * Puts the new secret in force: it overwrites the current one (which is thereby destroyed,
 * not kept unused), the version advances, and the rotation's columns are cleared. The
 * ciphertext moves as it is: both were sealed with the receiver id as associated data.
 */
export async function switchToNewSecret(db: PoolClient, id: string): Promise<boolean> {
  const res = await db.query(
    `update receivers set secret_ciphertext = pending_secret_ciphertext,
       secret_key_id = pending_secret_key_id, secret_version = secret_version + 1,
       pending_secret_ciphertext = null, pending_secret_key_id = null,
       rotation_created_at = null, rotation_created_by = null, rotation_switch_at = null,
       rotation_test_delivery_id = null, updated_at = now()
     where id = $1 and pending_secret_ciphertext is not null`,
    [id],
  );
  return res.rowCount === 1;
}

/** Schedules the switch; the worker signs with the new secret from that instant on. */
export async function scheduleSwitch(db: PoolClient, id: string, at: Date): Promise<void> {
  await db.query(`update receivers set rotation_switch_at = $2, updated_at = now() where id = $1`, [
    id,
    at,
  ]);
}

/**
 * Discards a pending rotation's new secret (overwritten with NULL), and unbinds its Tests from
 * the version they were to be signed with: a rotation started next gets the same version
 * (current + 1), and a Test of this one, still queued or resent later, was then signed with
 * that rotation's secret (a hostile review, 2026-11-30). They are marked CANCELLED_ROTATION,
 * which no secret signs (secretInForce: secret_unavailable). Its Tests are those of the
 * receiver with that version created since the rotation began (insertTestDelivery stamps
 * created_at after it took the receiver's lock, so after the rotation committed): the
 * receiver's index by created_at bounds the search to them.
 */
export async function discardRotation(db: PoolClient, id: string): Promise<void> {
  await db.query(
    `update deliveries d set secret_version = ${CANCELLED_ROTATION}
     from receivers r
     where r.id = $1 and r.rotation_created_at is not null and d.receiver_id = r.id
       and d.created_at >= r.rotation_created_at and d.test
       and d.secret_version = r.secret_version + 1`,
    [id],
  );
  await db.query(
    `update receivers set pending_secret_ciphertext = null, pending_secret_key_id = null,
       rotation_created_at = null, rotation_created_by = null, rotation_switch_at = null,
       rotation_test_delivery_id = null, updated_at = now()
     where id = $1`,
    [id],
  );
}

/** Remembers the latest Test signed with the new secret, shown with the rotation. */
export async function setRotationTest(
  db: PoolClient,
  id: string,
  deliveryId: string,
): Promise<void> {
  await db.query(`update receivers set rotation_test_delivery_id = $2 where id = $1`, [
    id,
    deliveryId,
  ]);
}

/**
 * Receivers whose scheduled switch has come, locked (SKIP LOCKED: replicas sweeping at once
 * take different ones), at most `limit`, earliest first.
 */
export async function lockDueSwitches(db: PoolClient, limit: number): Promise<LockedReceiver[]> {
  const res = await db.query<LockedReceiver>(
    `select id, brand_id, label, enabled, secret_version, true as pending, true as switch_due,
       to_char(rotation_switch_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as rotation_switch_at
     from receivers where rotation_switch_at <= now()
     order by rotation_switch_at limit $1 for update skip locked`,
    [limit],
  );
  return res.rows;
}
