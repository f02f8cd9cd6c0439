import type { Pool } from '@brand/shared/db';
import { MAX_LIMIT, type ResourceName } from '@brand/shared/resources';
import { pageJsonOf, POSITION_COLUMNS } from './pageJson';
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
 * The SQL of a page of `resource`, with or without a since bound and a cursor position.
 * Keyset pagination on (created_at, id) < (cursor): the *_page_idx index serves every page
 * at the same cost, rows sharing a created_at are ordered by id so none is skipped or
 * repeated, and rows inserted or updated during a walk cannot shift it (created_at never
 * changes).
 *
 * ORDER BY names the table's columns explicitly: unqualified, PostgreSQL would match the
 * select list's `to_char(created_at) as created_at` first and sort formatted text of every
 * matching row instead of reading the index in order.
 *
 * The page's size is the last parameter, applied outside a constant bound (MAX_LIMIT, the most
 * a page holds): with `limit $n` alone, the generic plan of the prepared statement is costed
 * for a tenth of the brand's rows, so on any brand of some size PostgreSQL kept choosing custom
 * plans and planned the statement again on every page; with the bound it settles on the
 * generic plan, the same index walk, which reads only the page's rows (the outer Limit pulls
 * them one at a time). PostgreSQL CPU per walk page 0.19 -> 0.14 ms (BENCHMARKS.md, E1's
 * list arm); records.pageQuery.test.ts holds both.
 */
function pageSql(resource: ResourceName, withSince: boolean, withAfter: boolean): string {
  const t = RESOURCE_TABLES[resource].table;
  const where = [`${t}.brand_id = $1`];
  let n = 1;
  if (withSince) where.push(`${t}.created_at > $${++n}::timestamptz`);
  if (withAfter) {
    where.push(`(${t}.created_at, ${t}.id) < ($${n + 1}::timestamptz, $${n + 2}::text)`);
    n += 2;
  }
  return `select * from (
      select ${SELECT_LISTS[resource]} from ${t}
      where ${where.join(' and ')}
      order by ${t}.created_at desc, ${t}.id desc
      limit ${MAX_LIMIT}
    ) bounded limit $${n + 1}`;
}

/**
 * Each distinct page SQL (6 resources x with/without since and cursor: 24) with a
 * prepared-statement name, built once: each pool connection parses the hot page query once
 * instead of on every request. The plan stays PostgreSQL's choice per execution
 * (plan_cache_mode auto); S4 of the bench checks that a page still reads only the rows it
 * returns.
 */
const PAGE_STATEMENTS = new Map<string, { name: string; text: string }>();
function pageStatement(q: PageQuery): { name: string; text: string } {
  const key = `${q.resource}:${q.since === undefined ? '' : 's'}${q.after ? 'a' : ''}`;
  let statement = PAGE_STATEMENTS.get(key);
  if (statement === undefined) {
    statement = {
      name: `records_page_${PAGE_STATEMENTS.size + 1}`,
      text: pageSql(q.resource, q.since !== undefined, q.after !== undefined),
    };
    PAGE_STATEMENTS.set(key, statement);
  }
  return statement;
}

/** The parameters of a page's statement, in the order pageSql numbers them. */
function pageParams(q: PageQuery): unknown[] {
  const params: unknown[] = [q.brandId];
  if (q.since !== undefined) params.push(q.since);
  if (q.after) params.push(q.after.createdAt, q.after.id);
  params.push(q.limit);
  return params;
}

/** The SQL and parameters of one page (see pageSql). */
export function pageQuery(q: PageQuery): { sql: string; params: unknown[] } {
  return { sql: pageStatement(q).text, params: pageParams(q) };
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
 * One page of a brand's resource, newest first (see pageSql), rendered once as JSON for
 * the gateway to write out as is. The select list already yields every public field in wire
 * order and wire form (text timestamps, float8 counters, null for absent values); the rows
 * come as arrays and pageJsonOf writes them through the resource's row shape. Measured
 * against the page built by PostgreSQL (row_to_json) on the walk (BENCHMARKS.md): the same
 * total CPU within noise, with more of it in the database, which every process shares.
 */
export async function selectPageJson(pool: Pool, q: PageQuery): Promise<JsonPage> {
  const { name, text } = pageStatement(q);
  const { rows } = await pool.query<unknown[]>({
    name,
    text,
    values: pageParams(q),
    rowMode: 'array',
  });
  const lastRow = rows[rows.length - 1];
  const at = POSITION_COLUMNS[q.resource];
  return {
    json: pageJsonOf(q.resource, rows),
    count: rows.length,
    last: lastRow && { createdAt: lastRow[at.createdAt] as string, id: lastRow[at.id] as string },
  };
}

/**
 * One record by id as a page of at most one (GET /api/v1/{resource}/{id}), in the same row
 * shape as every list (pageJsonOf). The brand is in the WHERE clause, and (brand_id, id) is
 * a unique index on every table (migrations 0002, 0020): another brand's id and an id that
 * exists nowhere are the same probe of that index finding nothing, with no heap visit, so
 * neither the answer nor its time says which one it was. A named statement per resource,
 * parsed once per connection, as the pages are.
 */
const RECORD_STATEMENTS = Object.fromEntries(
  Object.entries(RESOURCE_TABLES).map(([resource, { table }]) => [
    resource,
    {
      name: `records_one_${resource}`,
      text: `select ${SELECT_LISTS[resource as ResourceName]} from ${table}
        where ${table}.brand_id = $1 and ${table}.id = $2`,
    },
  ]),
) as Record<ResourceName, { name: string; text: string }>;

export async function selectRecordJson(
  pool: Pool,
  q: { brandId: string; resource: ResourceName; id: string },
): Promise<{ json: string; count: number }> {
  const { rows } = await pool.query<unknown[]>({
    ...RECORD_STATEMENTS[q.resource],
    values: [q.brandId, q.id],
    rowMode: 'array',
  });
  return { json: pageJsonOf(q.resource, rows), count: rows.length };
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
