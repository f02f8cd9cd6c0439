import { RESOURCES } from '@brand/shared/resources';
import { createTestDatabase, makeRecords, type TestDatabase } from '@brand/testkit';
import { pageQuery } from '../../src/records/recordRepo';

// The page query must read the (brand_id, created_at desc, id desc) index in order and
// stop after `limit` rows, at any depth: no Sort node, the *_page_idx index, and a cost
// that does not grow with the brand's size. This caught ORDER BY resolving to the
// to_char() output alias (sorting every matching row as text).

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
  for (const resource of RESOURCES) await makeRecords(db.pool, 'br_plan', resource, 30);
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
