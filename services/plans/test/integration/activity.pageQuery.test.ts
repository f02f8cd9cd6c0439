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
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const BRAND = 'br_activityplan';
/** Each service keeps its own activity table of the same shape. */
const SCHEMAS = ['plans', 'records', 'webhooks'] as const;
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
  // one person's three entries, older than every operator entry, in each service's log: a filter
  // by who or by what they touched must not step through the brand's 20,000 others to find them
  for (const schema of SCHEMAS) {
    if (schema !== 'plans')
      await db.pool.query(
        `insert into ${schema}.activity (id, brand_id, action, actor_email, summary, created_at)
         select id, brand_id, action, actor_email, summary, created_at from plans.activity
          where starts_with(id, 'act_plan')`,
      );
    await db.pool.query(
      `insert into ${schema}.activity (id, brand_id, action, actor_member_id, actor_email,
                                       subject_id, summary, created_at)
       select 'act_pat' || n, $1, 'plan.approved', 'mem_pat', 'Pat@Example.com', 'plan_pat',
              'Plan of Pat', timestamptz '2026-09-01T00:00:00Z' + make_interval(secs => n)
         from generate_series(1, 3) as n`,
      [BRAND],
    );
  }
  // what autovacuum does in production (it is off on these machines)
  for (const schema of SCHEMAS) await db.pool.query(`analyze ${schema}.activity`);
});
afterAll(() => db?.close());

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The page's statement on one service's table. */
function inSchema(sql: string, schema: string): string {
  return sql.replace(/from activity/, `from ${schema}.activity`);
}

async function planOf(
  query: { sql: string; params: unknown[] },
  { analyze = false, schema = 'plans' } = {},
): Promise<PlanNode[]> {
  const result = await db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
    `explain (format json${analyze ? ', analyze' : ''}) ${inSchema(query.sql, schema)}`,
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

  // The Activity page's and the audit-log export's filters by actor ("what did this person do")
  // and by subject ("what happened to this key"): each has an index leading with the brand and
  // the filtered column, in the page's order, so a rare actor's page reads its own rows only.
  it.each(
    SCHEMAS.flatMap((schema) => [
      [schema, 'an actor by email', { actorEmail: 'pat@example.com' }],
      [schema, 'an actor by member id', { actorMemberId: 'mem_pat' }],
      [schema, 'a subject', { subjectId: 'plan_pat' }],
    ]),
  )(
    "%s: a page of %s reads its own entries, not the brand's others",
    async (schema, _name, filters) => {
      const query = activityPageQuery({ brandId: BRAND, limit: 201, after: undefined, filters });
      const plan = await planOf(query, { analyze: true, schema });
      const removed = plan.reduce(
        (sum, n) =>
          sum + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0),
        0,
      );
      expect({ removed, sorted: plan.some((n) => n['Node Type'] === 'Sort') }).toEqual({
        removed: 0,
        sorted: false,
      });
      const page = await db.pool.query<{ id: string }>(inSchema(query.sql, schema), query.params);
      expect(page.rows.map((r) => r.id)).toEqual(['act_pat3', 'act_pat2', 'act_pat1']);
    },
  );

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
