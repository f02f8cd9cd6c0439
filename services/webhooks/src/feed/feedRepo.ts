import { rfc3339, type Pool } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { MAX_LIMIT } from '@brand/shared/resources';

/** One page's question to the feed: a direction, a bound, the filters. */
export interface FeedQuery {
  brandId: string;
  limit: number;
  /** Newest first below `before` (a cursor's position), or oldest first above `after`. */
  direction: { newestFirst: true; before?: number } | { newestFirst: false; after: number };
  types: readonly EventTypeName[];
  recordId?: string;
  /** Only this event. */
  eventId?: string;
  /** Exclusive bounds on created_at, normalized RFC 3339. */
  since?: string;
  until?: string;
}

/** An event of the feed as stored, with its position. */
interface FeedRow {
  position: number;
  id: string;
  type: EventTypeName;
  createdAt: string;
  test: boolean;
  brandId: string;
  objectJson: string;
}

/** A page of the feed, read in one statement (one snapshot). */
export interface FeedRead {
  rows: FeedRow[];
  /** The brand's newest position when the page was read (0: none yet). */
  version: number;
  /** The greatest position retention has dropped for the brand (0: none). */
  expiredThrough: number;
}

/** Which optional conditions a page's statement has: one prepared statement per shape. */
interface FeedShape {
  order: 'newest' | 'newestBefore' | 'oldestAfter';
  types: boolean;
  recordId: boolean;
  eventId: boolean;
  since: boolean;
  until: boolean;
}

/** The select list, in the order readFeedPage reads the array rows. */
const COLUMNS = `coalesce(h.last_seq, 0)::text, coalesce(h.expired_through, 0)::text,
  p.seq, p.id, p.type, p.created_at, p.test, p.brand_id, p.object_json`;

/**
 * The SQL of one shape: the page and the brand's head in ONE statement, so the page and the
 * version it is tagged with come from one snapshot: the page holds every matching event up to
 * that version (positions are handed out in commit order, migrations/0014_events_feed.sql).
 * Walks the events_feed index (brand_id, feed_seq) in either direction; the filters are
 * checked on the rows it walks, so a narrow filter over a long history reads more rows for
 * its page. Parameters: $1 brand, $2 limit, then the shape's bounds and filters in the order
 * feedParams lists them.
 */
function feedSql(shape: FeedShape): string {
  const where = ['e.brand_id = $1', 'e.feed_seq is not null'];
  let n = 2;
  const next = (): string => `$${++n}`;
  if (shape.order === 'newestBefore') where.push(`e.feed_seq < ${next()}`);
  if (shape.order === 'oldestAfter') where.push(`e.feed_seq > ${next()}`);
  if (shape.types) where.push(`e.type = any(${next()}::text[])`);
  if (shape.recordId) where.push(`e.record_id = ${next()}`);
  if (shape.eventId) where.push(`e.id = ${next()}`);
  if (shape.since) where.push(`e.created_at > ${next()}::timestamptz`);
  if (shape.until) where.push(`e.created_at < ${next()}::timestamptz`);
  const order = shape.order === 'oldestAfter' ? 'asc' : 'desc';
  // The page's size is $2, applied outside a constant bound (MAX_LIMIT, the most a page holds):
  // with `limit $2` alone, a generic plan is costed for a tenth of the brand's events, so
  // PostgreSQL kept choosing custom plans and planned the statement across every week
  // partition on each page (0.13 of 0.3 ms); with the bound it settles on the generic plan,
  // the same index walk, and reads only the page's rows (Limit pulls them one by one).
  return `select ${COLUMNS}
     from (select 1) one
     left join event_feed_heads h on h.brand_id = $1
     left join lateral (
       select * from (
         select e.feed_seq::text as seq, e.id, e.type, ${rfc3339('e.created_at')} as created_at,
           e.test, e.brand_id, e.object_json
         from events e where ${where.join(' and ')}
         order by e.feed_seq ${order} limit ${MAX_LIMIT}
       ) bounded limit $2
     ) p on true`;
}

function shapeOf(q: FeedQuery): FeedShape {
  const d = q.direction;
  return {
    order: !d.newestFirst ? 'oldestAfter' : d.before === undefined ? 'newest' : 'newestBefore',
    types: q.types.length > 0,
    recordId: q.recordId !== undefined,
    eventId: q.eventId !== undefined,
    since: q.since !== undefined,
    until: q.until !== undefined,
  };
}

/** The parameters of a page's statement, in feedSql's order. */
function feedParams(q: FeedQuery): unknown[] {
  const values: unknown[] = [q.brandId, q.limit];
  const d = q.direction;
  if (d.newestFirst && d.before !== undefined) values.push(d.before);
  if (!d.newestFirst) values.push(d.after);
  if (q.types.length > 0) values.push(q.types);
  if (q.recordId !== undefined) values.push(q.recordId);
  if (q.eventId !== undefined) values.push(q.eventId);
  if (q.since !== undefined) values.push(q.since);
  if (q.until !== undefined) values.push(q.until);
  return values;
}

/**
 * A named statement per shape (at most 3 x 2^5), built on first use: each pool connection
 * parses and plans a shape once instead of on every page, which matters on a table
 * partitioned by week, where planning visits every partition. PostgreSQL still chooses
 * between a generic and a custom plan per execution (plan_cache_mode auto).
 */
const STATEMENTS = new Map<string, { name: string; text: string }>();
function feedStatement(q: FeedQuery): { name: string; text: string } {
  const shape = shapeOf(q);
  const key = Object.values(shape).join(':');
  let statement = STATEMENTS.get(key);
  if (statement === undefined) {
    statement = { name: `webhooks_feed_${STATEMENTS.size + 1}`, text: feedSql(shape) };
    STATEMENTS.set(key, statement);
  }
  return statement;
}

type FeedArrayRow = [
  version: string,
  expiredThrough: string,
  seq: string | null,
  id: string,
  type: EventTypeName,
  createdAt: string,
  test: boolean,
  brandId: string,
  objectJson: string,
];

/** One page of a brand's feed and its head, read in one statement (feedSql). */
export async function readFeedPage(pool: Pool, q: FeedQuery): Promise<FeedRead> {
  const res = await pool.query<FeedArrayRow>({
    ...feedStatement(q),
    values: feedParams(q),
    rowMode: 'array',
  });
  const first = res.rows[0];
  const rows: FeedRow[] = [];
  for (const r of res.rows) {
    if (r[2] === null) continue; // the head alone: no event matched
    rows.push({
      position: Number(r[2]),
      id: r[3],
      type: r[4],
      createdAt: r[5],
      test: r[6],
      brandId: r[7],
      objectJson: r[8],
    });
  }
  return {
    rows,
    version: Number(first?.[0] ?? 0),
    expiredThrough: Number(first?.[1] ?? 0),
  };
}

/**
 * Records, before a week of events is dropped, the greatest feed position of each brand it
 * holds (migrations/0014_events_feed.sql): a position below it, or a cursor at or below it,
 * may have lost what followed it, and is answered 410 cursor_expired instead of a silent gap
 * (feedService.ts isExpired; a position at it lost nothing after it). `partition`
 * comes from the partition keeper's own listing, never from input; `past` narrows it to the
 * rows a sweep of the default partition is about to delete (its predicate, `$1` its bound).
 */
export async function expireFeedThrough(
  pool: Pool,
  partition: string,
  past?: { where: string; before: Date },
): Promise<void> {
  await pool.query(
    `insert into event_feed_heads as h (brand_id, expired_through)
     select brand_id, max(feed_seq) from webhooks.${partition}
     where feed_seq is not null ${past ? `and ${past.where}` : ''} group by brand_id
     on conflict (brand_id) do update
       set expired_through = greatest(h.expired_through, excluded.expired_through)`,
    past ? [past.before] : [],
  );
}
