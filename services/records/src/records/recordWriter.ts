import type { Pool, PoolClient } from '@brand/shared/db';
import type { ResourceName } from '@brand/shared/resources';
import type { RecordRow } from './recordRepo';
import { RESOURCE_TABLES, type ColumnKind } from './resourceTables';

// Test fixtures (@brand/testkit) build rows from the same column table the writer uses.
export { RESOURCE_TABLES, type ColumnKind } from './resourceTables';

const PG_TYPES: Record<ColumnKind, string> = {
  text: 'text',
  int8: 'bigint',
  timestamptz: 'timestamptz',
  date: 'date',
  'text[]': 'text[]',
};

/** One insert statement per resource, built once from RESOURCE_TABLES. */
const INSERT_SQL = Object.fromEntries(
  Object.entries(RESOURCE_TABLES).map(([resource, spec]) => {
    const columns = Object.keys(spec.columns);
    const types = Object.entries(spec.columns).map(([c, k]) => `${c} ${PG_TYPES[k]}`);
    return [
      resource,
      `insert into ${spec.table} (brand_id, ${columns.join(', ')})
       select $1, ${columns.join(', ')} from jsonb_to_recordset($2::jsonb) as r(${types.join(', ')})`,
    ];
  }),
) as Record<ResourceName, string>;

/**
 * Inserts records of one resource for a brand in a single statement (rows travel as one
 * JSON array; absent optional fields become NULL). Used by demo seeding and by test
 * fixtures; business writes with events belong to their own operations, not here.
 */
export async function insertRecords(
  db: Pool | PoolClient,
  brandId: string,
  resource: ResourceName,
  rows: RecordRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(INSERT_SQL[resource], [brandId, JSON.stringify(rows)]);
}

/**
 * Refreshes the planner statistics of the six tables after a bulk load. Without them (a
 * fresh database, or autovacuum not yet run or off) PostgreSQL planned a brand's first
 * page as a bitmap scan plus a sort of all its rows, about 5 ms instead of an ordered read
 * of 51 index entries. Runs after the load commits: ANALYZE samples committed rows.
 */
export async function analyzeRecordTables(db: Pool | PoolClient): Promise<void> {
  for (const spec of Object.values(RESOURCE_TABLES)) await db.query(`analyze ${spec.table}`);
}
