import { rfc3339 } from '../db/sqlFormat';
import type { Pool, PoolClient } from '../db/pool';
import { currentClientOrigin } from '../grpc/clientOrigin';
import { newId } from '../ids';
import type { ActivityFilters, ActivityPosition, ActivityRow, NewActivity } from './activityTypes';

/**
 * The audit log of the Developers area. Each service that owns a change keeps its own
 * `activity` table of this one shape in its own schema (created by its own migration; the
 * service pool's search_path selects it), written in the transaction of the change where
 * there is one, and served by its ListActivity RPC.
 *
 * client_address and user_agent (issue 42) are added to each table by its service's own
 * migration. Until a service has them, its rows simply carry none: the row is written through
 * jsonb_populate_record (which fills the table's own columns and ignores the rest) and read
 * through to_jsonb (a missing column reads as ''), so one release serves every schema.
 */

type Db = Pool | PoolClient;

export async function insertActivity(db: Db, entry: NewActivity): Promise<void> {
  const origin = entry.origin ?? currentClientOrigin();
  const row = {
    id: newId('activity'),
    brand_id: entry.brandId,
    action: entry.action,
    actor_member_id: entry.actorMemberId,
    actor_email: entry.actorEmail,
    subject_id: entry.subjectId,
    summary: entry.summary.slice(0, 300),
    client_address: origin.clientAddress.slice(0, 64),
    user_agent: origin.userAgent.slice(0, 512),
  };
  await db.query(
    `insert into activity
     select * from jsonb_populate_record(null::activity, $1::jsonb || jsonb_build_object('created_at', now()))`,
    [JSON.stringify(row)],
  );
}

/**
 * One page of a brand's entries, newest first, strictly after `after` when given, filtered.
 * Keyset on (created_at, id), never OFFSET: the index on (brand_id, created_at desc, id desc)
 * walks the page whatever its depth; a filter is a condition on that walk.
 */
export async function selectActivityPage(
  db: Db,
  q: {
    brandId: string;
    limit: number;
    after: ActivityPosition | undefined;
    filters: ActivityFilters;
  },
): Promise<ActivityRow[]> {
  const f = q.filters;
  const params: unknown[] = [q.brandId];
  const where = ['brand_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) =>
    where.push(sql(`$${params.push(value)}`));
  if (q.after) {
    const at = `$${params.push(q.after.created_at)}::timestamptz`;
    where.push(`(created_at, id) < (${at}, $${params.push(q.after.id)}::text)`);
  }
  if (f.actorMemberId) add((n) => `actor_member_id = ${n}`, f.actorMemberId);
  if (f.actorEmail) add((n) => `lower(actor_email) = ${n}`, f.actorEmail);
  if (f.action) add((n) => `action = ${n}`, f.action);
  if (f.actionPrefix) add((n) => `starts_with(action, ${n})`, f.actionPrefix);
  if (f.subjectId) add((n) => `subject_id = ${n}`, f.subjectId);
  if (f.since) add((n) => `created_at >= ${n}`, f.since);
  if (f.until) add((n) => `created_at < ${n}`, f.until);
  // The page is cut first and only its rows are turned into JSON: to_jsonb in the outer
  // select would run on every row the scan reads when the planner sorts instead of walking
  // the index (a log just filled, its statistics not yet updated).
  const r = await db.query<ActivityRow>(
    `select id, brand_id, action, actor_member_id, actor_email, subject_id, summary,
            ${rfc3339('created_at')} as created_at,
            coalesce(to_jsonb(page) ->> 'client_address', '') as client_address,
            coalesce(to_jsonb(page) ->> 'user_agent', '') as user_agent
     from (select * from activity
           where ${where.join(' and ')}
           order by created_at desc, id desc
           limit ${q.limit}) as page
     order by created_at desc, id desc`,
    params,
  );
  return r.rows;
}
