import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import { makeRecords, startStack, type Stack } from '@brand/testkit';
import { RESOURCE_TABLES } from '../../src/records/resourceTables';

// ListRecordsPage is the one page RPC, the gateway's hot path: the page rendered once, here,
// as the public JSON the REST API serves: every field of the resource's message, in the
// message's order, absent values as null, with its cursors and its refusals. (Walking pages:
// records.listRecordsPage.walk.)

let stack: Stack;
let brandId: string;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  brandId = (await stack.admin.createBrand()).brand.id;
  await stack.admin.seedDemoData(brandId);
});
afterAll(() => stack?.close());

/** A record as the public JSON holds it: every column in order, null if unset. */
function publicRecord(resource: ResourceName, record: Record<string, unknown>): object {
  const out: Record<string, unknown> = {};
  for (const column of Object.keys(RESOURCE_TABLES[resource].columns))
    out[column] = record[column] ?? null;
  return out;
}

describe('ListRecordsPage', () => {
  it.each(RESOURCES)(
    'renders every %s page byte for byte as the stored records in the public shape, with cursors to the end',
    async (resource) => {
      const brand = (await stack.admin.createBrand()).brand.id;
      // 80 rows: the factories cycle statuses, so set and unset nullable fields both occur
      const rows = await makeRecords(stack.db.pool, brand, resource, 80);
      const expected = rows as unknown as Array<Record<string, unknown>>;
      let cursor: string | undefined;
      let offset = 0;
      let pages = 0;
      do {
        const page = await stack.admin.listRecordsPage({
          brand_id: brand,
          resource,
          limit: 37,
          cursor,
        });
        const slice = expected.slice(offset, offset + 37);
        expect(Buffer.from(page.data_json).toString('utf8')).toBe(
          JSON.stringify(slice.map((r) => publicRecord(resource, r))),
        );
        expect(page.count).toBe(slice.length);
        // a cursor exactly on a full page
        expect(page.next_cursor !== undefined).toBe(page.count === 37);
        offset += page.count;
        pages += 1;
        cursor = page.next_cursor;
      } while (cursor !== undefined && pages < 10);
      expect(cursor).toBeUndefined();
      expect(offset).toBe(expected.length);
    },
  );

  it('keeps nulls, integers and microsecond UTC timestamps in the JSON', async () => {
    const page = await stack.admin.listRecordsPage({ brand_id: brandId, resource: 'payouts' });
    const records = JSON.parse(Buffer.from(page.data_json).toString('utf8')) as Array<
      Record<string, unknown>
    >;
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(Object.keys(r)).toEqual(Object.keys(RESOURCE_TABLES.payouts.columns));
      expect(Number.isInteger(r.amount)).toBe(true);
      expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(r.paid_at === null || typeof r.paid_at === 'string').toBe(true);
    }
  });

  it('answers an empty brand with an empty array and no cursor', async () => {
    const empty = (await stack.admin.createBrand()).brand.id;
    const page = await stack.admin.listRecordsPage({ brand_id: empty, resource: 'links' });
    expect(Buffer.from(page.data_json).toString('utf8')).toBe('[]');
    expect(page.count).toBe(0);
    expect(page.next_cursor).toBeUndefined();
  });

  it('refuses a bad cursor, limit or since with invalid_cursor or invalid_parameter', async () => {
    await expect(
      stack.admin.listRecordsPage({ brand_id: brandId, resource: 'campaigns', cursor: 'x.y' }),
    ).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(
      stack.admin.listRecordsPage({ brand_id: brandId, resource: 'campaigns', limit: 201 }),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
    await expect(
      stack.admin.listRecordsPage({ brand_id: brandId, resource: 'campaigns', since: 'soon' }),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
