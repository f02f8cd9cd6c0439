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
 * Deletes at most `limit` request entries stored before `before` that every audit stream of
 * their brand has been sent (a stream that cannot deliver keeps them: nothing a stream was owed
 * is lost, however long its destination is away), and that no pending delivery of a stream
 * still carries. A set-aside entry is below stream_delivered_through, yet one an owner sends
 * again is owed until its delivery ends: deleted while it retried (a review of c980ad73), its
 * next attempt read no entries and sent an empty body, which a 2xx recorded as delivered. Once
 * its delivery succeeds or fails again, the entry goes at the next pass. Activity entries are
 * kept for as long as the brand exists, as the services that wrote them keep them. Walks the
 * partial index of request entries by age, oldest first; an entry kept is walked past again on
 * each pass, as one a stream has not reached is.
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
    const res = await db.query(
      `delete from audit_entries where ctid = any(array(
         select e.ctid from audit_entries e
         where e.kind = 'request' and e.received_at < $1
           and e.seq <= coalesce((select min(r.stream_delivered_through) from receivers r
                                  where r.brand_id = ${BRAND} and r.kind <> 'webhook'), e.seq)
           and not ${SENDING}
         order by e.received_at limit $2))`,
      [before, limit],
    );
    return res.rowCount ?? 0;
  });
}
