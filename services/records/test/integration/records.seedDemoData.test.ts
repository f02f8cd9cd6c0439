import { RESOURCES } from '@brand/shared/resources';
import { pageQuery } from '../../src/records/recordRepo';
import {
  createAdminClient,
  startStack,
  TEST_ADMIN_TOKEN,
  TEST_INTERNAL_TOKEN,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

const countRows = async (brandId: string): Promise<Record<string, number>> => {
  const counts: Record<string, number> = {};
  for (const table of RESOURCES) {
    const r = await stack.db.pool.query<{ n: number }>(
      `select count(*)::int as n from ${table} where brand_id = $1`,
      [brandId],
    );
    counts[table] = r.rows[0]!.n;
  }
  return counts;
};

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe('SeedDemoData', () => {
  // Issue 6.7: a seed leaves planner statistics behind, so the demo brand's first page is an
  // ordered index read right away, even where autovacuum has not run (or is off).
  it('leaves statistics: the first page right after a seed is an ordered index scan', async () => {
    const { brand } = await stack.admin.createBrand();
    await stack.admin.seedDemoData(brand.id);
    // reltuples is -1 until the table is analysed
    const { rows } = await stack.db.pool.query<{ n: number }>(
      "select reltuples::int as n from pg_class where oid = 'records.submissions'::regclass",
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    const { sql, params } = pageQuery({
      brandId: brand.id,
      resource: 'submissions',
      limit: 50,
      since: undefined,
      after: undefined,
    });
    const explained = await stack.db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `explain (format json) ${sql}`,
      params,
    );
    const plan = nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan);
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(plan.some((n) => n['Index Name'] === 'submissions_page_idx')).toBe(true);
  });

  it('creates about 4,000 related records across the six resources', async () => {
    const { brand } = await stack.admin.createBrand();
    const created = await stack.admin.seedDemoData(brand.id);
    expect(Object.keys(created).sort()).toEqual([...RESOURCES].sort());
    for (const r of RESOURCES) expect(created[r]).toBeGreaterThan(0);
    const total = Object.values(created).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(3_800);
    expect(total).toBeLessThanOrEqual(4_200);
    expect(await countRows(brand.id)).toEqual(created);

    // every child points at a campaign of the same brand (the foreign keys hold)
    const orphans = await stack.db.pool.query(
      `select 1 from submissions s left join campaigns c on c.id = s.campaign_id and c.brand_id = s.brand_id
       where s.brand_id = $1 and c.id is null`,
      [brand.id],
    );
    expect(orphans.rowCount).toBe(0);

    // and the records read back through ListRecordsPage
    const page = await stack.admin.listPageRecords({
      brand_id: brand.id,
      resource: 'payouts',
      limit: 5,
    });
    expect(page.records).toHaveLength(5);
    expect(page.next_cursor).toBeDefined();
    expect(page.records[0]).toMatchObject({
      id: expect.stringMatching(/^po_/) as string,
      currency: 'PHP',
      status: expect.stringMatching(/^(pending|processing|paid|failed)$/) as string,
    });
  });

  it('refuses an unknown brand with not_found', async () => {
    await expect(stack.admin.seedDemoData('br_doesNotExist000000')).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses a scale above 50 with validation_failed', async () => {
    const { brand } = await stack.admin.createBrand();
    await expect(stack.admin.seedDemoData(brand.id, 51)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(Object.values(await countRows(brand.id))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it.each([
    ['no token', '', 'unauthenticated'],
    ['a wrong token', `x${TEST_ADMIN_TOKEN}`, 'unauthenticated'],
    ['the internal (non-admin) token', TEST_INTERNAL_TOKEN, 'insufficient_permission'],
  ])('refuses %s and writes nothing', async (_, token, code) => {
    const { brand } = await stack.admin.createBrand();
    const client = createAdminClient(stack.records.address, token);
    try {
      await expect(client.seedDemoData(brand.id)).rejects.toMatchObject({ code });
    } finally {
      client.close();
    }
    expect(Object.values(await countRows(brand.id))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
