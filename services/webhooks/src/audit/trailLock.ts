import type { PoolClient } from '@brand/shared/db';

/**
 * The lock a resend of set-aside entries and the request-entry retention both take
 * (transaction-level, advisory), so that neither reads the trail while the other changes it (a
 * review of 08e46f07): a resend read a set-aside entry as still there while a retention pass was
 * deleting it, or the pass read no pending delivery while the resend was queueing one, and either
 * way a delivery was queued for an entry that was gone. Whoever takes it second waits for the
 * other's commit, and reads the trail after it in a statement of its own (READ COMMITTED: each
 * statement sees what committed before it began).
 *
 * One key for every brand, shared by resends (they never wait for each other) and taken alone by
 * a pass: a pass learns which brands it deletes from only by walking the entries, and one lock a
 * brand would need that walk twice (before the locks, and again after them). A resend waits at
 * most for one pass of SWEEP_BATCH_SIZE entries (milliseconds); a pass waits for the resends under
 * way, and those that come after it queue behind it (PostgreSQL grants locks in order).
 */
const TRAIL_LOCK = `hashtext('webhooks.audit_trail_retention')`;

/** A resend's hold on the trail, in the caller's transaction till it ends (shared). */
export async function holdTrailForResend(db: PoolClient): Promise<void> {
  await db.query(`select pg_advisory_xact_lock_shared(${TRAIL_LOCK})`);
}

/** A retention pass's hold on the trail, in the caller's transaction till it ends (alone). */
export async function holdTrailForRetention(db: PoolClient): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(${TRAIL_LOCK})`);
}
