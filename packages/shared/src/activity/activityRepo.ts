import { rfc3339 } from '../db/sqlFormat';
import type { Pool, PoolClient } from '../db/pool';
import { currentClientOrigin } from '../grpcClient/clientOrigin';
import { newId } from '../ids';
import { firstCharacters } from '../text';
import type { ActivityFilters, ActivityPosition, ActivityRow, NewActivity } from './activityTypes';

/**
 * The audit log of the Developers area. Each service that owns a change keeps its own
 * `activity` table of this one shape in its own schema (created by its own migration; the
 * service pool's search_path selects it), written in the transaction of the change where
 * there is one, and served by its ListActivity RPC.
 * Every row carries the address and User-Agent of the request that made it (the caller's
 * origin, passed in gRPC metadata and kept for the call: grpcClient/clientOrigin.ts), '' for what a
 * service does by itself.
 */

type Db = Pool | PoolClient;

/**
 * Characters of a summary that are kept. Summaries name what changed in a sentence; the longest
 * a plan's, "<title> (<campaign type>)", is 212 with a title at its limit of 200, so its
 * suffix always stays. Counted in characters: a cut by UTF-16 units cut an emoji title's
 * summary short and left half an emoji, stored as U+FFFD.
 */
export const SUMMARY_MAX_CHARACTERS = 300;

export async function insertActivity(db: Db, entry: NewActivity): Promise<void> {
  const origin = entry.origin ?? currentClientOrigin();
  await db.query(
    `insert into activity (id, brand_id, action, actor_member_id, actor_email, subject_id, summary,
       client_address, user_agent)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      newId('activity'),
      entry.brandId,
      entry.action,
      entry.actorMemberId,
      entry.actorEmail,
      entry.subjectId,
      firstCharacters(entry.summary, SUMMARY_MAX_CHARACTERS),
      origin.clientAddress.slice(0, 64),
      origin.userAgent.slice(0, 512),
    ],
  );
}

/**
 * One page of a brand's entries, newest first, strictly after `after` when given, filtered.
 * Keyset on (created_at, id), never OFFSET: the index on (brand_id, created_at desc, id desc)
 * walks the page whatever its depth; a filter is a condition on that walk.
 *
 * ORDER BY names the table's columns: unqualified, `created_at` is the select list's
 * `to_char(created_at) as created_at`, and PostgreSQL sorted the formatted text of every
 * older entry of the brand for each page instead of walking the index (70 ms a page of a
 * 100,000-entry log; an export of it, 500 pages, took 37 s). activity.pageQuery.test.ts
 * holds the plan.
 */
export async function selectActivityPage(db: Db, q: ActivityPageQuery): Promise<ActivityRow[]> {
  const { sql, params } = activityPageQuery(q);
  const r = await db.query<ActivityRow>(sql, params);
  return r.rows;
}

/** What one page of the audit log asks for. */
export interface ActivityPageQuery {
  brandId: string;
  limit: number;
  after: ActivityPosition | undefined;
  filters: ActivityFilters;
}

/** The SQL and parameters of one page (selectActivityPage's, and its plan's test). */
export function activityPageQuery(q: ActivityPageQuery): { sql: string; params: unknown[] } {
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
  const sql = `select id, brand_id, action, actor_member_id, actor_email, subject_id, summary,
            ${rfc3339('created_at')} as created_at, client_address, user_agent
     from activity
     where ${where.join(' and ')}
     order by activity.created_at desc, activity.id desc
     limit ${q.limit}`;
  return { sql, params };
}
