import { Resource } from '@brand/proto/records/v1';
import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import {
  formatMicros,
  makeRecords,
  startStack,
  type AdminClient,
  type RecordTypes,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

/** Follows next_cursor to the end; returns every record and the size of each page. */
async function walk(
  admin: AdminClient,
  req: { brand_id: string; resource: ResourceName; limit?: number; since?: string },
): Promise<{ records: Array<Record<string, unknown>>; pages: number[]; cursors: number }> {
  const records: Array<Record<string, unknown>> = [];
  const pages: number[] = [];
  let cursors = 0;
  let cursor: string | undefined;
  do {
    const page = await admin.listPageRecords({ ...req, cursor });
    pages.push(page.records.length);
    records.push(...page.records);
    cursor = page.next_cursor;
    if (cursor !== undefined) cursors++;
    if (pages.length > 100) throw new Error('cursor walk does not end');
  } while (cursor !== undefined);
  return { records, pages, cursors };
}

const ids = (rows: readonly object[]): unknown[] => rows.map((r) => (r as { id: unknown }).id);

describe('ListRecordsPage', () => {
  let brandA: string;
  let submissions: Array<RecordTypes['submissions']>;
  let shared: string;

  beforeAll(async () => {
    brandA = (await stack.admin.createBrand()).brand.id;
    // rows 100..699 share one created_at (between the defaults of rows 99 and 700): only
    // (created_at, id) keeps them apart
    shared = formatMicros(Date.now() * 1000 - 100_500_000);
    submissions = await makeRecords(stack.db.pool, brandA, 'submissions', 1050, (i) =>
      i >= 100 && i < 700 ? { created_at: shared } : {},
    );
    expect(submissions.findIndex((s) => s.created_at === shared)).toBe(100);
  });

  it('walks 1,050 submissions with a cursor, each exactly once, newest first', async () => {
    const { records, pages } = await walk(stack.admin, {
      brand_id: brandA,
      resource: 'submissions',
      limit: 200,
    });
    expect(pages).toEqual([200, 200, 200, 200, 200, 50]);
    expect(new Set(ids(records)).size).toBe(1050);
    expect(records).toEqual(submissions);
    expect(submissions.filter((s) => s.created_at === shared)).toHaveLength(600);
  });

  it('ends with an empty page without a cursor when the last page was exactly full', async () => {
    const { records, pages } = await walk(stack.admin, {
      brand_id: brandA,
      resource: 'submissions',
      limit: 150,
    });
    expect(pages).toEqual([150, 150, 150, 150, 150, 150, 150, 0]);
    expect(ids(records)).toEqual(ids(submissions));
  });

  it('uses a page of 50 when no limit is given', async () => {
    const page = await stack.admin.listPageRecords({ brand_id: brandA, resource: 'submissions' });
    expect(page.records).toEqual(submissions.slice(0, 50));
    expect(page.next_cursor).toBeDefined();
  });

  it('refuses a cursor of brand A used with brand B as invalid_cursor', async () => {
    const brandB = (await stack.admin.createBrand()).brand.id;
    await makeRecords(stack.db.pool, brandB, 'submissions', 3);
    const page = await stack.admin.listPageRecords({
      brand_id: brandA,
      resource: 'submissions',
      limit: 10,
    });
    await expect(
      stack.admin.listPageRecords({
        brand_id: brandB,
        resource: 'submissions',
        cursor: page.next_cursor,
      }),
    ).rejects.toMatchObject({ code: 'invalid_cursor' });
    // nor for another resource of brand A
    await expect(
      stack.admin.listPageRecords({
        brand_id: brandA,
        resource: 'payouts',
        cursor: page.next_cursor,
      }),
    ).rejects.toMatchObject({ code: 'invalid_cursor' });
  });

  it.each(['garbage', 'abc.def', `${'x'.repeat(40)}.${'y'.repeat(43)}`])(
    'refuses the cursor %p as invalid_cursor',
    async (cursor) => {
      await expect(
        stack.admin.listPageRecords({ brand_id: brandA, resource: 'submissions', cursor }),
      ).rejects.toMatchObject({ code: 'invalid_cursor' });
    },
  );

  it('treats since as an exclusive lower bound on created_at', async () => {
    const k = 42;
    const bound = submissions[k]!.created_at;
    const { records } = await walk(stack.admin, {
      brand_id: brandA,
      resource: 'submissions',
      since: bound,
      limit: 200,
    });
    expect(records).toEqual(submissions.slice(0, k));
  });

  it('excludes every row sharing the since timestamp', async () => {
    const { records } = await walk(stack.admin, {
      brand_id: brandA,
      resource: 'submissions',
      since: shared,
      limit: 200,
    });
    expect(ids(records)).toEqual(ids(submissions.slice(0, 100)));
  });

  it('reads since in any time zone and keeps it across cursor pages', async () => {
    // the same instant as submissions[30].created_at, written at +08:00
    const utc = submissions[30]!.created_at;
    const shifted = new Date(Date.parse(utc) + 8 * 3_600_000).toISOString().slice(0, 19);
    const since = `${shifted}${utc.slice(19, 26)}+08:00`;
    const { records, pages } = await walk(stack.admin, {
      brand_id: brandA,
      resource: 'submissions',
      since,
      limit: 7,
    });
    expect(ids(records)).toEqual(ids(submissions.slice(0, 30)));
    expect(pages).toEqual([7, 7, 7, 7, 2]);
  });

  it('keeps the since filter of the first page when later pages send only the cursor', async () => {
    const since = submissions[25]!.created_at;
    const first = await stack.admin.listPageRecords({
      brand_id: brandA,
      resource: 'submissions',
      since,
      limit: 10,
    });
    const seen = [...first.records];
    let cursor = first.next_cursor;
    while (cursor !== undefined) {
      const page = await stack.admin.listPageRecords({
        brand_id: brandA,
        resource: 'submissions',
        cursor,
        limit: 10,
      });
      seen.push(...page.records);
      cursor = page.next_cursor;
    }
    expect(ids(seen)).toEqual(ids(submissions.slice(0, 25)));
  });

  it.each([0, 201, -1])('refuses limit %i with invalid_parameter', async (limit) => {
    await expect(
      stack.admin.listPageRecords({ brand_id: brandA, resource: 'submissions', limit }),
    ).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/limit/) as string,
    });
  });

  it.each(['yesterday', '2026-02-30T00:00:00Z', '2026-01-31T23:59:59'])(
    'refuses since %p with invalid_parameter',
    async (since) => {
      await expect(
        stack.admin.listPageRecords({ brand_id: brandA, resource: 'submissions', since }),
      ).rejects.toMatchObject({
        code: 'invalid_parameter',
        message: expect.stringMatching(/since/) as string,
      });
    },
  );

  it.each([Resource.RESOURCE_UNSPECIFIED, 99 as Resource])(
    'refuses resource %i with unknown_resource',
    async (resource) => {
      await expect(
        stack.admin.listPageRecords({ brand_id: brandA, resource }),
      ).rejects.toMatchObject({
        code: 'unknown_resource',
      });
    },
  );

  it("never returns another brand's records", async () => {
    const brandC = (await stack.admin.createBrand()).brand.id;
    const page = await stack.admin.listPageRecords({ brand_id: brandC, resource: 'submissions' });
    expect(page.records).toEqual([]);
    expect(page.next_cursor).toBeUndefined();
  });
});

describe('ListRecordsPage for each resource', () => {
  it.each(RESOURCES)('returns %s exactly as stored, newest first', async (resource) => {
    const brand = (await stack.admin.createBrand()).brand.id;
    const rows = await makeRecords(stack.db.pool, brand, resource, 5);
    // children come with a parent campaign, which then is one of the brand's campaigns
    const page = await stack.admin.listPageRecords({ brand_id: brand, resource, limit: 200 });
    expect(page.records).toEqual(rows);
    expect(page.next_cursor).toBeUndefined();
  });
});
