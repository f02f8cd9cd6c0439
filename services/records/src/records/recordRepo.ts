import type { Pool } from '@brand/shared/db';
import type { ResourceName } from '@brand/shared/resources';
import { RESOURCE_TABLES, selectExpression, type ColumnKind } from './resourceTables';

/** A record as it leaves the database: wire-ready values, nullable columns absent. */
export type RecordRow = Record<string, string | number | string[] | undefined>;

export interface PageQuery {
  brandId: string;
  resource: ResourceName;
  limit: number;
  /** Exclusive lower bound on created_at. */
  since: string | undefined;
  /** Return only rows strictly after this position in (created_at desc, id desc) order. */
  after: { createdAt: string; id: string } | undefined;
}

/** The select list of each resource, built once; also the RETURNING list of business changes. */
export const SELECT_LISTS = Object.fromEntries(
  Object.entries(RESOURCE_TABLES).map(([resource, spec]) => [
    resource,
    Object.entries(spec.columns)
      .map(([column, kind]) => selectExpression(column, kind))
      .join(', '),
  ]),
) as Record<ResourceName, string>;

/**
 * The SQL and parameters of one page. Keyset pagination on (created_at, id) < (cursor):
 * the *_page_idx index serves every page at the same cost, rows sharing a created_at are
 * ordered by id so none is skipped or repeated, and rows inserted or updated during a walk
 * cannot shift it (created_at never changes).
 *
 * ORDER BY names the table's columns explicitly: unqualified, PostgreSQL would match the
 * select list's `to_char(created_at) as created_at` first and sort formatted text of every
 * matching row instead of reading the index in order.
 */
export function pageQuery(q: PageQuery): { sql: string; params: unknown[] } {
  const spec = RESOURCE_TABLES[q.resource];
  const t = spec.table;
  const params: unknown[] = [q.brandId];
  const where = [`${t}.brand_id = $1`];
  if (q.since !== undefined) {
    params.push(q.since);
    where.push(`${t}.created_at > $${params.length}::timestamptz`);
  }
  if (q.after) {
    params.push(q.after.createdAt, q.after.id);
    where.push(
      `(${t}.created_at, ${t}.id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`,
    );
  }
  params.push(q.limit);
  const sql = `select ${SELECT_LISTS[q.resource]} from ${t}
    where ${where.join(' and ')}
    order by ${t}.created_at desc, ${t}.id desc
    limit $${params.length}`;
  return { sql, params };
}

/**
 * A prepared-statement name per distinct page SQL (6 resources x with/without since and
 * cursor: at most 24): each pool connection parses the hot page query once instead of on
 * every request. The plan stays PostgreSQL's choice per execution (plan_cache_mode auto);
 * S4 of the bench checks that a page still reads only the rows it returns.
 */
const STATEMENT_NAMES = new Map<string, string>();
function statementName(sql: string): string {
  let name = STATEMENT_NAMES.get(sql);
  if (name === undefined) {
    name = `records_page_${STATEMENT_NAMES.size + 1}`;
    STATEMENT_NAMES.set(sql, name);
  }
  return name;
}

/** One page already rendered as the public JSON array, with what the next cursor needs. */
export interface JsonPage {
  /** The records as a JSON array: select-list order, nulls kept, numbers as numbers. */
  json: string;
  count: number;
  /** created_at (RFC 3339 text) and id of the last row, when there is one. */
  last: { createdAt: string; id: string } | undefined;
}

/**
 * One page of a brand's resource, newest first (see pageQuery), rendered once as JSON for
 * the gateway to write out as is. The select list already yields every public field in wire
 * order and wire form (text timestamps, float8 counters, null for absent values), so
 * JSON.stringify of pg's rows is the public records array. Measured against
 * json_agg/row_to_json in PostgreSQL (BENCHMARKS.md): the same total CPU within noise,
 * with less of it in the database, which every process shares.
 */
export async function selectPageJson(pool: Pool, q: PageQuery): Promise<JsonPage> {
  const { sql, params } = pageQuery(q);
  const { rows } = await pool.query<Record<string, unknown>>({
    name: statementName(sql),
    text: sql,
    values: params,
  });
  const lastRow = rows[rows.length - 1];
  return {
    json: JSON.stringify(rows),
    count: rows.length,
    last: lastRow && { createdAt: lastRow.created_at as string, id: lastRow.id as string },
  };
}

/** A row selected with SELECT_LISTS, as the wire carries it (nullable columns absent). */
export function toRecordRow(
  row: Record<string, unknown>,
  columns: Readonly<Record<string, ColumnKind>>,
): RecordRow {
  const out: RecordRow = {};
  for (const column of Object.keys(columns)) {
    const value = row[column];
    out[column] = value === null ? undefined : (value as string | number | string[]);
  }
  return out;
}
