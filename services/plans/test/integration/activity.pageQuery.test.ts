import pg from 'pg';
import { activityPageQuery, selectActivityPage } from '@brand/shared/activity/activityRepo';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';

// The audit log's page (shared by records, plans and webhooks, each on its own activity table)
// must walk the (brand_id, created_at desc, id desc) index in order and stop after its page,
// at any depth and with any filter: no Sort node. Ordering by the select list's formatted
// created_at instead of the column once sorted every older entry of the brand for each page,
// which made an export of a 100,000-entry log take 37 s.

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const BRAND = 'br_activityplan';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into plans.activity (id, brand_id, action, actor_email, summary, created_at)
     select 'act_plan' || n, $1, 'plan.cancelled', 'operator', 'Plan ' || n,
            timestamptz '2026-10-01T00:00:00Z' + make_interval(secs => n)
       from generate_series(1, 20000) as n`,
    [BRAND],
  );
  // what autovacuum does in production (it is off on these machines)
  await db.pool.query('analyze plans.activity');
});
afterAll(() => db?.close());

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(query: { sql: string; params: unknown[] }): Promise<PlanNode[]> {
  const result = await db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
    `explain (format json) ${query.sql.replace(/from activity/, 'from plans.activity')}`,
    query.params,
  );
  return nodes(result.rows[0]!['QUERY PLAN'][0]!.Plan);
}

describe('the audit log page', () => {
  it.each([
    ['the first page', undefined, {}],
    ['a deep page', { created_at: '2026-10-01T01:00:00Z', id: 'act_plan3600' }, {}],
    ['a page of one action', undefined, { action: 'plan.cancelled' }],
  ])('%s walks the index in order, without sorting', async (_name, after, filters) => {
    const plan = await planOf(activityPageQuery({ brandId: BRAND, limit: 201, after, filters }));
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(plan.map((n) => n['Index Name'])).toContain('activity_brand_created_idx');
  });

  it('reads exactly the page asked for, newest first', async () => {
    // the plans service's own search_path, as its pool has it
    const plans = new pg.Pool({ connectionString: db.url, options: '-c search_path=plans' });
    try {
      const page = await selectActivityPage(plans, {
        brandId: BRAND,
        limit: 3,
        after: { created_at: '2026-10-01T00:00:10.000000Z', id: 'act_plan10' },
        filters: {},
      });
      expect(page.map((r) => r.id)).toEqual(['act_plan9', 'act_plan8', 'act_plan7']);
    } finally {
      await plans.end();
    }
  });
});
