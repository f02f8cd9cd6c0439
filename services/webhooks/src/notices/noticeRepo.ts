import { rfc3339, type Pool, type PoolClient } from '@brand/shared/db';
import { leaseFor, leaseFree } from '../claim/lease';

type Db = Pool | PoolClient;

/**
 * A notice as the console's mailer gets it: the receiver started failing, recovered, or was
 * disabled by the service.
 */
export interface NoticeRow {
  id: string;
  brand_id: string;
  receiver_id: string;
  receiver_label: string;
  receiver_url: string;
  /** Set on a disable notice only. */
  disabled_at: string | null;
  failing_since: string | null;
  reason: string;
  last_error: string;
  created_at: string;
  kind: 'failing' | 'recovered' | 'disabled';
  failures: number;
}

/**
 * Leases up to `limit` unsent notices, oldest first, for `leaseMs`: FOR UPDATE SKIP LOCKED,
 * so concurrent mailers take different ones; a notice whose lease ran out (its mailer died
 * before acknowledging) is handed out again.
 */
export async function claimNotices(db: Db, limit: number, leaseMs: number): Promise<NoticeRow[]> {
  const res = await db.query<NoticeRow>(
    `with picked as (
       select id from receiver_notices
       where sent_at is null and ${leaseFree()}
       order by created_at, id limit $1 for update skip locked
     )
     update receiver_notices n set ${leaseFor('$2')},
       claims = n.claims + 1
     from picked where n.id = picked.id
     returning n.id, n.brand_id, n.receiver_id, n.receiver_label, n.receiver_url,
       ${rfc3339('n.disabled_at')} as disabled_at, ${rfc3339('n.failing_since')} as failing_since,
       n.reason, n.last_error, ${rfc3339('n.created_at')} as created_at, n.kind, n.failures`,
    [limit, leaseMs],
  );
  // RETURNING keeps no order; the fixed-width timestamps sort as text
  return res.rows.sort((a, b) =>
    a.created_at === b.created_at ? a.id.localeCompare(b.id) : a.created_at < b.created_at ? -1 : 1,
  );
}

/** Marks a notice sent; again is a no-op. False when no such notice exists. */
export async function ackNotice(db: Db, id: string): Promise<boolean> {
  const res = await db.query(
    `update receiver_notices set sent_at = coalesce(sent_at, now()), lease_until = null where id = $1`,
    [id],
  );
  return res.rowCount === 1;
}
