import type { ActivityEntry } from '@brand/proto/activity/v1';
import { rfc3339 } from '../db/sqlFormat';
import type { Pool, PoolClient } from '../db/pool';
import { newId } from '../ids';

/**
 * The audit log of the Developers area. Each service that owns a change keeps its own
 * `activity` table of this one shape in its own schema (created by its own migration; the
 * service pool's search_path selects it), written in the transaction of the change where
 * there is one, and served by its ListActivity RPC.
 */
export type ActivityRow = ActivityEntry;

/** An entry to write: what happened, to what, and who did it. */
export interface NewActivity {
  brandId: string;
  action: string;
  /** The member who acted; empty for an operator. */
  actorMemberId: string;
  /** The member's email, or "operator". */
  actorEmail: string;
  subjectId: string;
  /** For people; never a secret. */
  summary: string;
}

/** Where a page ended: the exact created_at (microseconds) and id of its last row. */
export interface ActivityPosition {
  created_at: string;
  id: string;
}

type Db = Pool | PoolClient;

export async function insertActivity(db: Db, entry: NewActivity): Promise<void> {
  await db.query(
    `insert into activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      newId('activity'),
      entry.brandId,
      entry.action,
      entry.actorMemberId,
      entry.actorEmail,
      entry.subjectId,
      entry.summary.slice(0, 300),
    ],
  );
}

/** One page of a brand's entries, newest first, strictly after `after` when given. */
export async function selectActivityPage(
  db: Db,
  q: { brandId: string; limit: number; after: ActivityPosition | undefined },
): Promise<ActivityRow[]> {
  const r = await db.query<ActivityRow>(
    `select id, brand_id, action, actor_member_id, actor_email, subject_id, summary,
            ${rfc3339('created_at')} as created_at
     from activity
     where brand_id = $1
       and ($2::timestamptz is null or (created_at, id) < ($2::timestamptz, $3::text))
     order by created_at desc, id desc
     limit $4`,
    [q.brandId, q.after?.created_at ?? null, q.after?.id ?? null, q.limit],
  );
  return r.rows;
}
