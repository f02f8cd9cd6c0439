import { rfc3339, type Pool } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';

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

/**
 * One page of a brand's feed and its head, in ONE statement so the page and the version it
 * is tagged with come from one snapshot: the page holds every matching event up to that
 * version (positions are handed out in commit order, migrations/0014_events_feed.sql). Walks
 * the events_feed index (brand_id, feed_seq) in either direction; the filters are checked
 * on the rows it walks, so a narrow filter over a long history reads more rows for its page.
 */
export async function readFeedPage(pool: Pool, q: FeedQuery): Promise<FeedRead> {
  const values: unknown[] = [q.brandId, q.limit];
  const $ = (value: unknown): string => `$${values.push(value)}`;
  const where = ['e.brand_id = $1', 'e.feed_seq is not null'];
  const d = q.direction;
  if (d.newestFirst && d.before !== undefined) where.push(`e.feed_seq < ${$(d.before)}`);
  if (!d.newestFirst) where.push(`e.feed_seq > ${$(d.after)}`);
  if (q.types.length > 0) where.push(`e.type = any(${$(q.types)}::text[])`);
  if (q.recordId !== undefined) where.push(`e.record_id = ${$(q.recordId)}`);
  if (q.eventId !== undefined) where.push(`e.id = ${$(q.eventId)}`);
  if (q.since !== undefined) where.push(`e.created_at > ${$(q.since)}::timestamptz`);
  if (q.until !== undefined) where.push(`e.created_at < ${$(q.until)}::timestamptz`);
  const order = d.newestFirst ? 'desc' : 'asc';
  const res = await pool.query<{
    version: string;
    expired_through: string;
    seq: string | null;
    id: string;
    type: EventTypeName;
    created_at: string;
    test: boolean;
    brand_id: string;
    object_json: string;
  }>(
    `select coalesce(h.last_seq, 0)::text as version,
       coalesce(h.expired_through, 0)::text as expired_through, p.*
     from (select 1) one
     left join event_feed_heads h on h.brand_id = $1
     left join lateral (
       select e.feed_seq::text as seq, e.id, e.type, ${rfc3339('e.created_at')} as created_at,
         e.test, e.brand_id, e.object_json
       from events e where ${where.join(' and ')}
       order by e.feed_seq ${order} limit $2
     ) p on true`,
    values,
  );
  const first = res.rows[0];
  const rows: FeedRow[] = res.rows
    .filter((r) => r.seq !== null)
    .map((r) => ({
      position: Number(r.seq),
      id: r.id,
      type: r.type,
      createdAt: r.created_at,
      test: r.test,
      brandId: r.brand_id,
      objectJson: r.object_json,
    }));
  return {
    rows,
    version: Number(first?.version ?? 0),
    expiredThrough: Number(first?.expired_through ?? 0),
  };
}

/**
 * Records, before a week of events is dropped, the greatest feed position of each brand it
 * holds (migrations/0014_events_feed.sql): a cursor or position at or below it may have lost
 * what followed it, and is answered 410 cursor_expired instead of a silent gap. `partition`
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
