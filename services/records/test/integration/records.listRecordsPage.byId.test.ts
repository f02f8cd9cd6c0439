import { newId } from '@brand/shared/ids';
import { RESOURCES } from '@brand/shared/resources';
import { makeRecords, startStack, type Stack } from '@brand/testkit';
import { RESOURCE_TABLES } from '../../src/records/resourceTables';

// ListRecordsPage with `id` answers GET /api/v1/{resource}/{id}: the page of the one record of the
// brand, in the list's bytes, or an empty page, the same for another brand's id and an id that
// exists nowhere; the lookup is one probe of the (brand_id, id) index that touches no table page
// when nothing matches (migration 0020). Refusals are invalid_parameter.

let stack: Stack;
let mine: string;
let theirs: string;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  mine = (await stack.admin.createBrand()).brand.id;
  theirs = (await stack.admin.createBrand()).brand.id;
});
afterAll(() => stack?.close());

const KINDS = {
  campaigns: 'campaign',
  submissions: 'submission',
  payouts: 'payout',
  deposits: 'deposit',
  conversions: 'conversion',
  links: 'link',
} as const;

describe('ListRecordsPage with id', () => {
  it.each(RESOURCES)(
    '%s: the record in the bytes of its list page, or the same empty page for a foreign id and none',
    async (resource) => {
      const [own] = await makeRecords(stack.db.pool, mine, resource, 3);
      const [other] = await makeRecords(stack.db.pool, theirs, resource, 1);
      const list = await stack.admin.listRecordsPage({ brand_id: mine, resource, limit: 200 });
      const listed = (JSON.parse(Buffer.from(list.data_json).toString()) as object[]).find(
        (r) => (r as { id: string }).id === own!.id,
      );
      const found = await stack.admin.listRecordsPage({ brand_id: mine, resource, id: own!.id });
      expect(found.count).toBe(1);
      expect(found.next_cursor).toBeUndefined();
      expect(Buffer.from(found.data_json).toString()).toBe(JSON.stringify([listed]));
      for (const id of [
        other!.id,
        newId(KINDS[resource]),
        resource === 'links' ? own!.id.replace('lnk_', 'cmp_') : newId('link'),
      ]) {
        const none = await stack.admin.listRecordsPage({ brand_id: mine, resource, id });
        expect(none.count).toBe(0);
        expect(Buffer.from(none.data_json).toString()).toBe('[]');
        expect(none.next_cursor).toBeUndefined();
      }
    },
  );

  it('with_change_version reads the version before the record', async () => {
    const [own] = await makeRecords(stack.db.pool, mine, 'payouts', 1);
    const res = await stack.admin.listRecordsPage({
      brand_id: mine,
      resource: 'payouts',
      id: own!.id,
      with_change_version: true,
    });
    expect(res.count).toBe(1);
    expect(Number(res.change_version)).toBeGreaterThan(0);
  });

  it.each([
    ['limit beside it', { limit: 1 }],
    ['a cursor beside it', { cursor: 'abc.def' }],
    ['since beside it', { since: '2026-01-01T00:00:00Z' }],
  ])('refuses %s with invalid_parameter', async (_what, extra) => {
    await expect(
      stack.admin.listRecordsPage({ brand_id: mine, resource: 'payouts', id: 'po_abc', ...extra }),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  it.each(['', 'po_abc.def', `po_${'a'.repeat(70)}`])(
    'refuses the id %j with invalid_parameter',
    async (id) => {
      await expect(
        stack.admin.listRecordsPage({ brand_id: mine, resource: 'payouts', id }),
      ).rejects.toMatchObject({ code: 'invalid_parameter' });
    },
  );

  it.each(RESOURCES)(
    '%s: a lookup that finds nothing is one probe of the (brand_id, id) index, the brand in its condition',
    async (resource) => {
      // a table with rows and statistics, as in service (an empty one may be read any way)
      const [other] = await makeRecords(stack.db.pool, theirs, resource, 300);
      const t = RESOURCE_TABLES[resource].table;
      await stack.db.pool.query(`analyze records.${t}`);
      const client = await stack.db.pool.connect();
      try {
        await client.query('set search_path = records');
        // the generic plan is what a named statement runs after its fifth execution
        await client.query('set plan_cache_mode = force_generic_plan');
        await client.query(
          `prepare one_${t}(text, text) as select * from ${t} where ${t}.brand_id = $1 and ${t}.id = $2`,
        );
        for (const id of [other!.id, newId(KINDS[resource])]) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(
            `explain (analyze, buffers, costs off, timing off, summary off) execute one_${t}(${client.escapeLiteral(mine)}, ${client.escapeLiteral(id)})`,
          );
          const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
          // the brand is a condition of the index, not a filter applied to a fetched row
          expect(plan).toMatch(new RegExp(`Index Scan using ${t}_brand_id_id_key`));
          expect(plan).toMatch(/Index Cond: \(\(brand_id = .*\) AND \(id = .*\)\)/);
          expect(plan).toContain('rows=0');
          expect(plan).not.toContain('Filter');
        }
      } finally {
        client.release();
      }
    },
  );
});
