import { RESOURCES } from '@brand/shared/resources';
import {
  createTestDatabase,
  makeRecords,
  preparedStatements,
  type TestDatabase,
} from '@brand/testkit';
import { pageQuery, selectPageJson } from '../../src/records/recordRepo';
import pg from 'pg';

// The page query must read the (brand_id, created_at desc, id desc) index in order and
// stop after `limit` rows, at any depth: no Sort node, the *_page_idx index, and a cost
// that does not grow with the brand's size. This caught ORDER BY resolving to the
// to_char() output alias (sorting every matching row as text). The page's prepared
// statement must also settle on PostgreSQL's generic plan, so a page is not planned again on
// every request, and that plan must read the index in the same way.

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    "insert into brands (id, name, tier, verified) values ('br_plan', 'Plan check', 'plus', true)",
  );
  // enough rows that a page is a small part of the brand (what the planner weighs a generic
  // plan against: a tenth of the brand's rows for an unknown limit)
  for (const resource of RESOURCES) await makeRecords(db.pool, 'br_plan', resource, 500);
  await db.pool.query('analyze');
});

afterAll(() => db?.close());

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(sql: string, params: unknown[]): Promise<PlanNode[]> {
  const client = await db.pool.connect();
  try {
    // Without this a tiny table may be scanned whole; the question is whether an ordered
    // index read is possible at all, which it is not when a Sort is required.
    await client.query('set enable_seqscan = off');
    const result = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (format json) ${sql}`,
      params,
    );
    return nodes(result.rows[0]!['QUERY PLAN'][0]!.Plan);
  } finally {
    client.release();
  }
}

describe('pageQuery plan', () => {
  it.each(RESOURCES)('%s pages read the page index in order, without sorting', async (resource) => {
    const cases = [
      pageQuery({ brandId: 'br_plan', resource, limit: 50, since: undefined, after: undefined }),
      pageQuery({
        brandId: 'br_plan',
        resource,
        limit: 50,
        since: '2020-01-01T00:00:00Z',
        after: { createdAt: '2030-01-01T00:00:00.000000Z', id: 'zzz_1' },
      }),
    ];
    for (const { sql, params } of cases) {
      const plan = await planOf(sql, params);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(plan.map((n) => n['Index Name'])).toContain(`${resource}_page_idx`);
    }
  });
});

describe('the page statement as the service runs it', () => {
  it.each(RESOURCES)(
    '%s pages settle on a generic plan that reads the index in order',
    async (resource) => {
      // one connection: each of the service's pool connections prepares a statement once
      const pool = new pg.Pool({
        connectionString: db.url,
        max: 1,
        options: '-c search_path=records',
      });
      try {
        const first = {
          brandId: 'br_plan',
          resource,
          limit: 10,
          since: undefined,
          after: undefined,
        };
        const last = (await selectPageJson(pool, first)).last!;
        for (let i = 0; i < 8; i++) {
          await selectPageJson(pool, first);
          await selectPageJson(pool, { ...first, after: last });
        }
        const client = await pool.connect();
        try {
          const rows = await preparedStatements(client, 'records_page_%');
          expect(rows).toHaveLength(2);
          await client.query('set enable_seqscan = off');
          for (const row of rows) {
            // PostgreSQL tries five custom plans before it weighs the generic one; from then on
            // the generic plan serves every page
            expect(row.custom).toBeLessThanOrEqual(5);
            expect(row.generic).toBeGreaterThanOrEqual(3);
            const args =
              row.parameters === 2
                ? "'br_plan', 10"
                : "'br_plan', '2030-01-01T00:00:00Z', 'zzz_1', 10";
            const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
              `explain (format json) execute ${row.name}(${args})`,
            );
            const plan = nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan);
            expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
            expect(plan.map((n) => n['Index Name'])).toContain(`${resource}_page_idx`);
          }
        } finally {
          client.release();
        }
      } finally {
        await pool.end();
      }
    },
  );
});
