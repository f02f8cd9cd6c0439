import { withTransaction, type Pool } from '@brand/shared/db';
import { holdTrailForRetention } from './trailLock';

/** Request entries are kept as long as records keeps its request log: 7 days. */
export const REQUEST_ENTRY_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * The entry `e`'s brand as receivers.brand_id compares: audit_entries.brand_id is collate "C",
 * receivers' is the database's; compared bare, the two collations let no index of receivers
 * serve the lookup, so each entry walked read every receiver (a sequential scan per entry, 2.4 s
 * a pass of 1000 with 20000 receivers), and the check below could not use the brand either.
 * Equality is the same under both (deterministic collations compare bytes).
 */
const BRAND = `(e.brand_id collate "default")`;

/**
 * Whether a pending delivery of one of the brand's streams carries the entry `e`: its run
 * (the event's object_json {from, through}) covers e.seq. Such a delivery is a set-aside entry
 * sent again (setAside.ts requeueSetAside), below stream_delivered_through, or the stream's
 * current run, above it. Per entry, the brand's streams (receivers_streams), then each one's
 * pending deliveries (the partial index deliveries_waiting_receiver: status 'pending' and not
 * test), few per stream, and their events by key.
 */
const SENDING = `exists (
  select 1 from receivers r
  join deliveries d on d.receiver_id = r.id and d.status = 'pending' and not d.test
  join events v on v.id = d.event_id and v.created_at = d.event_at
  cross join lateral (select v.object_json::jsonb as j) o
  where r.brand_id = ${BRAND} and r.kind <> 'webhook'
    and (o.j ->> 'from')::bigint <= e.seq and e.seq <= (o.j ->> 'through')::bigint)`;

/**
 * Each brand with request entries and its oldest, found by a skip scan of
 * audit_entries_requests_by_brand_received (one probe a brand, the brand's first entry by age).
 */
const BRANDS = `brands as (
  (select e.brand_id, e.received_at as oldest from audit_entries e
   where e.kind = 'request' order by e.brand_id, e.received_at limit 1)
  union all
  select n.brand_id, n.received_at from brands b
  cross join lateral (select e.brand_id, e.received_at from audit_entries e
                      where e.kind = 'request' and e.brand_id > b.brand_id
                      order by e.brand_id, e.received_at limit 1) n)`;

/**
 * The pass's statement: $1 the time before which entries expired, $2 the most it deletes. A
 * brand's deletable entries are its request entries both expired and at or below its low point
 * `low` (the least its streams have been sent through; no bound without a stream), less those a
 * pending delivery carries. For each brand with expired request entries, oldest first, it reads
 * one of those two ranges and filters by the other, the one that is (nearly) the deletable
 * entries themselves: a brand's positions are handed out in commit order and received_at is the
 * storing transaction's start, so its request entries are in age order but for those stored at
 * the same moments. One probe tells which (`low_expired`: the last request entry at or below
 * `low`, by audit_entries_requests_by_brand_seq, which holds no activity entry). It expired (a
 * stream stuck since before the retention): the entries at or below `low` are expired but for a
 * few, and are read by position, so the kept ones above `low` are never read. It did not, or no
 * stream: the expired entries are at or below `low` but for a few, and are read by age
 * (audit_entries_requests_by_brand_received). No request entry at or below `low`: nothing of the
 * brand's may go, and nothing is read. Each read is ordered and stops at the pass's limit.
 * Each filters by the other range's column only (`is true`, `coalesce`), which no index can serve:
 * read by age instead, a stuck stream's entries would be read again, whatever the statistics
 * say of how few they are.
 */
export const DELETE_EXPIRED_REQUEST_ENTRIES = `with recursive ${BRANDS}
delete from audit_entries where ctid = any(array(
  select x.ctid
  from (select b.brand_id from brands b where b.oldest < $1 order by b.oldest) b
  cross join lateral (select min(r.stream_delivered_through) as low from receivers r
                      where r.brand_id = (b.brand_id collate "default")
                        and r.kind <> 'webhook') s
  cross join lateral (select (select e.received_at < $1 from audit_entries e
                              where e.brand_id = b.brand_id and e.kind = 'request'
                                and e.seq <= s.low
                              order by e.seq desc limit 1) as low_expired) w
  cross join lateral (
    (select e.ctid from audit_entries e
     where s.low is not null and w.low_expired
       and e.brand_id = b.brand_id and e.kind = 'request'
       and e.seq <= s.low and (e.received_at < $1) is true and not ${SENDING}
     order by e.seq limit $2)
    union all
    (select e.ctid from audit_entries e
     where (s.low is null or not w.low_expired)
       and e.brand_id = b.brand_id and e.kind = 'request' and e.received_at < $1
       and e.seq <= coalesce(s.low, e.seq) and not ${SENDING}
     order by e.received_at limit $2)) x
  limit $2))`;

/**
 * How many of the trail's oldest expired request entries the first, cheap read of a pass looks
 * at: twice what a pass may delete. When none of them is kept, it finds a pass's worth in them
 * with no per-brand probe at all (every brand's stream keeping up, the usual case); when it
 * looks at all of them and still finds fewer than the pass may delete, kept entries may be in
 * the way, and the pass goes on brand by brand (DELETE_EXPIRED_REQUEST_ENTRIES).
 */
const OLDEST_LOOKED_AT = 2;

/**
 * A pass's first read: the trail's oldest expired request entries by age
 * (audit_entries_requests_received), at most $3 of them, and those of them that may go deleted,
 * at most $2, by the same rule as DELETE_EXPIRED_REQUEST_ENTRIES. Answers how many it deleted
 * and how many it looked at. Its cost is the entries it looks at, whatever the number of brands.
 */
export const DELETE_OLDEST_REQUEST_ENTRIES = `with oldest as materialized (
  select e.ctid, e.brand_id, e.seq, e.received_at from audit_entries e
  where e.kind = 'request' and e.received_at < $1
  order by e.received_at limit $3),
gone as (
  delete from audit_entries where ctid = any(array(
    select e.ctid from oldest e
    where e.seq <= coalesce((select min(r.stream_delivered_through) from receivers r
                             where r.brand_id = ${BRAND} and r.kind <> 'webhook'), e.seq)
      and not ${SENDING}
    order by e.received_at limit $2))
  returning 1)
select (select count(*) from gone)::int as deleted, (select count(*) from oldest)::int as looked`;

/**
 * The settings the pass's statement runs under (for the rest of its transaction): each walk an
 * ordered index scan, which its limit stops. A bitmap scan reads a walk's whole range before the
 * limit applies (every deletable entry of a brand back from days away, at every pass), and
 * statistics that count few entries in a range make it the cheaper plan. JIT off: a pass of a
 * thousand rows has nothing to gain from compiling (as the claim's SCAN_PLAN_SETTING).
 */
export const RETENTION_PLAN_SETTING = `select set_config('enable_bitmapscan', 'off', true),
  set_config('jit', 'off', true)`;

/**
 * Deletes at most `limit` request entries stored before `before` that every audit stream of
 * their brand has been sent (a stream that cannot deliver keeps them: nothing a stream was owed
 * is lost, however long its destination is away), and that no pending delivery of a stream
 * still carries. A set-aside entry is below stream_delivered_through, yet one an owner sends
 * again is owed until its delivery ends: deleted while it retried (a review of c980ad73), its
 * next attempt read no entries and sent an empty body, which a 2xx recorded as delivered. Once
 * its delivery succeeds or fails again, the entry goes at the next pass. Activity entries are
 * kept for as long as the brand exists, as the services that wrote them keep them.
 *
 * A pass costs what it deletes, not the entries it keeps. It walked the trail's request entries
 * by age and stepped past every kept one, oldest of all, to reach those behind: with one brand's
 * stream stuck for days (300,000 kept entries, 50,000 deletable across 1,000 other brands, two
 * runs on a busy machine), 1.1-2.7 s and 617,000 pages a pass of 1,000, and 1.2-2.3 s to find
 * nothing once they were gone, all under the trail lock that resends wait for. Now it looks at
 * the 2 x `limit` oldest expired entries first (DELETE_OLDEST_REQUEST_ENTRIES): every brand's
 * streams keeping up, that is the whole pass, at the cost of what it deletes however many brands
 * there are. Only when those were all looked at and fewer than `limit` could go does it go on
 * brand by brand (DELETE_EXPIRED_REQUEST_ENTRIES: 23-61 ms and 7,800 pages, and 14-40 ms and
 * 4,000 pages to find nothing, in the case above; a few probes a brand with request entries, so
 * paid only while kept entries are in the way). Brands go oldest entry first there, each one's
 * entries by position or by age: when more than `limit` may go, a pass deletes another `limit`
 * of them than the oldest of the whole trail, and the next passes the rest.
 *
 * Under the trail lock (trailLock.ts), taken before the delete's statement begins so that it
 * reads the deliveries a resend queued meanwhile, and a resend waits for the delete (a review of
 * 08e46f07: each unseen by the other, a delivery was queued for an entry deleted).
 */
export function deleteExpiredRequestEntries(
  pool: Pool,
  before: Date,
  limit: number,
): Promise<number> {
  return withTransaction(pool, async (db) => {
    await holdTrailForRetention(db);
    await db.query(RETENTION_PLAN_SETTING);
    const looked = limit * OLDEST_LOOKED_AT;
    const first = await db.query<{ deleted: number; looked: number }>(
      DELETE_OLDEST_REQUEST_ENTRIES,
      [before, limit, looked],
    );
    const { deleted, looked: seen } = first.rows[0]!;
    if (deleted >= limit || seen < looked) return deleted;
    const more = await db.query(DELETE_EXPIRED_REQUEST_ENTRIES, [before, limit - deleted]);
    return deleted + (more.rowCount ?? 0);
  });
}
