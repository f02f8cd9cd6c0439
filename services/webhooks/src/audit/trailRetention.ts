import type { Pool } from '@brand/shared/db';

/** Request entries are kept as long as records keeps its request log: 7 days. */
export const REQUEST_ENTRY_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * Deletes at most `limit` request entries stored before `before` that every audit stream of
 * their brand has been sent (a stream that cannot deliver keeps them: nothing a stream was owed
 * is lost, however long its destination is away). Activity entries are kept for as long as the
 * brand exists, as the services that wrote them keep them. Walks the partial index of request
 * entries by age, oldest first.
 */
export async function deleteExpiredRequestEntries(
  pool: Pool,
  before: Date,
  limit: number,
): Promise<number> {
  const res = await pool.query(
    `delete from audit_entries where ctid = any(array(
       select e.ctid from audit_entries e
       where e.kind = 'request' and e.received_at < $1
         and e.seq <= coalesce((select min(r.stream_delivered_through) from receivers r
                                where r.brand_id = e.brand_id and r.kind <> 'webhook'), e.seq)
       order by e.received_at limit $2))`,
    [before, limit],
  );
  return res.rowCount ?? 0;
}
