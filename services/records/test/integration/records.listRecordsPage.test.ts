import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import { recordValue, startStack, type Stack } from '@brand/testkit';
import { RESOURCE_TABLES } from '../../src/records/resourceTables';

// ListRecordsPage is the gateway's hot path: the page rendered once, here, as the public
// JSON the REST API serves. It must be byte for byte what the gateway used to build from
// ListRecords (every field, in the message's order, absent values as null), with the same
// cursors and the same refusals.

let stack: Stack;
let brandId: string;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  brandId = (await stack.admin.createBrand()).brand.id;
  await stack.admin.seedDemoData(brandId);
});
afterAll(() => stack?.close());

/** What the gateway rendered from a ListRecords record: every column in order, null if unset. */
function publicRecord(resource: ResourceName, record: Record<string, unknown>): object {
  const out: Record<string, unknown> = {};
  for (const column of Object.keys(RESOURCE_TABLES[resource].columns))
    out[column] = record[column] ?? null;
  return out;
}

describe('ListRecordsPage', () => {
  it.each(RESOURCES)(
    'renders every %s page exactly as ListRecords records serialised, with the same cursors',
    async (resource) => {
      let cursor: string | undefined;
      let pages = 0;
      let rows = 0;
      do {
        const req = { brand_id: brandId, resource, limit: 37, cursor };
        const [json, proto] = await Promise.all([
          stack.admin.listRecordsPage(req),
          stack.admin.listRecords(req),
        ]);
        const expected = JSON.stringify(
          proto.records.map((r) => publicRecord(resource, recordValue(r))),
        );
        expect(Buffer.from(json.data_json).toString('utf8')).toBe(expected);
        expect(json.count).toBe(proto.records.length);
        expect(json.next_cursor).toBe(proto.next_cursor);
        rows += json.count;
        pages += 1;
        cursor = json.next_cursor;
      } while (cursor !== undefined && pages < 200);
      expect(cursor).toBeUndefined();
      expect(rows).toBeGreaterThan(0);
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

  it('refuses what ListRecords refuses, with the same codes', async () => {
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
