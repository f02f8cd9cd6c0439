import type { Pool } from '@brand/shared/db';

/**
 * The tables the sweep keeps bounded row by row, and the time column each one's retention is
 * measured on (each has an index on it). The delivery history goes a week partition at a time
 * instead (historyPartitions.ts).
 */
const RETAINED = {
  receiver_health: 'bucket_start',
  receiver_notices: 'created_at',
  recoveries: 'created_at',
} as const;

export type RetainedTable = keyof typeof RETAINED;

/**
 * Deletes at most `limit` rows of `table` older than `before`, and returns how many. The
 * names come from RETAINED, never from input. The oldest are taken in the column's order, so
 * the plan is a walk of its index that stops at the first row too young, with or without
 * table statistics: a pass with nothing to delete must not read the whole table.
 */
export async function deleteBefore(
  pool: Pool,
  table: RetainedTable,
  before: Date,
  limit: number,
): Promise<number> {
  const column = RETAINED[table];
  const res = await pool.query(
    `delete from ${table} where ctid = any(array(
       select ctid from ${table} where ${column} < $1 order by ${column} limit $2))`,
    [before, limit],
  );
  return res.rowCount ?? 0;
}
