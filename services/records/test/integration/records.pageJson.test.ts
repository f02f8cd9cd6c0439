import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import { createTestDatabase, makeRecords, type TestDatabase } from '@brand/testkit';
import {
  pageQuery,
  selectPageJson,
  SELECT_LISTS,
  type PageQuery,
} from '../../src/records/recordRepo';
import { RESOURCE_TABLES, selectExpression } from '../../src/records/resourceTables';

// ListRecordsPageResponse.data_json is a contract (the proto comment): the page builder
// (rows as arrays through each resource's row shape) must give exactly the bytes of two
// independent builders over every resource, hostile values included:
//   - JSON.stringify of pg's row objects for the same query (what records did before);
//   - PostgreSQL's own JSON of the same rows (row_to_json; counters as bigint, since
//     PostgreSQL writes a float8 of 1e15 or more as 1e+15).

const BRAND = 'br_pagejson';
const ROWS = 14;
const LIMIT = 5;

/** Strings JSON must escape or carry exactly; each free-text column gets them in turn. */
const HOSTILE = [
  '"quoted" and \\back\\slashed\\',
  Array.from({ length: 31 }, (_, i) => String.fromCodePoint(i + 1)).join('') + '\u007f',
  'line\nbreak\r\ntab\tform\fback\b',
  'separators \u2028 and \u2029 stay raw',
  'ñandú, 日本語, emoji 🎉, astral 𝄞, combining e\u0301, rtl \u202eevil\u202c',
  '</script><script>alert(1)</script>',
  '',
  '\\u0000 is six characters here, not a NUL',
  'x'.repeat(5_000),
];

/** Columns that take any text (no check constraint, no foreign key), per resource. */
const FREE_TEXT: Record<ResourceName, string[]> = {
  campaigns: ['id', 'title', 'currency'],
  submissions: ['id', 'creator_handle', 'platform', 'content_url', 'rejection_reason'],
  payouts: ['id', 'creator_handle', 'currency', 'failure_reason'],
  deposits: ['id', 'currency', 'reference'],
  conversions: ['id', 'currency', 'order_reference'],
  links: ['id', 'creator_handle', 'destination_url', 'short_url'],
};

const INT8_COLUMNS = (resource: ResourceName): string[] =>
  Object.entries(RESOURCE_TABLES[resource].columns)
    .filter(([, kind]) => kind === 'int8')
    .map(([column]) => column);

/** Optional columns: the proto's optionals, NULL in the table. */
const NULLABLE: Record<ResourceName, string[]> = {
  campaigns: ['settled_at'],
  submissions: ['rejection_reason', 'reviewed_at'],
  payouts: ['submission_id', 'failure_reason', 'paid_at'],
  deposits: ['campaign_id', 'confirmed_at'],
  conversions: ['link_id', 'order_reference'],
  links: [],
};

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into brands (id, name, tier, verified) values ($1, 'Page JSON', 'plus', true)`,
    [BRAND],
  );
  for (const resource of RESOURCES) {
    const rows = await makeRecords(db.pool, BRAND, resource, ROWS);
    const table = RESOURCE_TABLES[resource].table;
    for (const [i, row] of rows.entries()) {
      // column -> SQL value: hostile text in every free column (a distinct id per row),
      // counters at the edges JSON and float8 share (2^53 - 1 is the last exact integer),
      // and on every third row every optional column absent
      const sets = new Map<string, string>();
      const values: string[] = [];
      const absent = i % 3 === 0 ? NULLABLE[resource] : [];
      for (const column of absent) sets.set(column, 'null');
      FREE_TEXT[resource].forEach((column, c) => {
        if (absent.includes(column)) return;
        const text = HOSTILE[(i + c) % HOSTILE.length]!;
        values.push(column === 'id' ? `${text}#${i}` : text);
        sets.set(column, `$${values.length + 1}`);
      });
      const edge = [0, 1, 2 ** 53 - 1, 1_234_567_890_123][i % 4]!;
      for (const column of INT8_COLUMNS(resource))
        sets.set(column, String(column === 'amount' ? Math.max(edge, 1) : edge)); // amount > 0
      const assignments = [...sets].map(([column, value]) => `${column} = ${value}`);
      await db.pool.query(`update ${table} set ${assignments.join(', ')} where id = $1`, [
        row.id,
        ...values,
      ]);
    }
  }
  // arrays: quotes, commas, braces, backslashes, the word NULL, a real NULL, empty
  await db.pool.query(
    `update campaigns set platforms = $2::text[] where brand_id = $1 and title = $3`,
    [BRAND, ['"q"', 'a,b', '{x}', 'back\\slash', 'NULL', null, ''], HOSTILE[0]],
  );
});

afterAll(() => db?.close());

/** Today's bytes: pg's row objects for the same query, through JSON.stringify. */
async function pgObjectsJson(q: PageQuery): Promise<string> {
  const { sql, params } = pageQuery(q);
  const { rows } = await db.pool.query(sql, params);
  return JSON.stringify(rows);
}

/** PostgreSQL's JSON of the same rows (row_to_json), counters as bigint. */
async function postgresJson(q: PageQuery): Promise<string> {
  const { sql, params } = pageQuery(q);
  const bigints = Object.entries(RESOURCE_TABLES[q.resource].columns)
    .map(([column, kind]) => selectExpression(column, kind === 'int8' ? 'text' : kind))
    .join(', ');
  const inner = sql.replace(SELECT_LISTS[q.resource], bigints);
  const { rows } = await db.pool.query<{ j: string }>(
    `select row_to_json(p)::text as j from (${inner}) p`,
    params,
  );
  return `[${rows.map((r) => r.j).join(',')}]`;
}

describe('the page JSON builder', () => {
  it.each(RESOURCES)(
    '%s: every page is byte for byte what pg row objects and PostgreSQL give',
    async (resource) => {
      let after: PageQuery['after'];
      let records = 0;
      let pages = 0;
      do {
        const q: PageQuery = { brandId: BRAND, resource, limit: LIMIT, since: undefined, after };
        const page = await selectPageJson(db.pool, q);
        expect(page.json).toBe(await pgObjectsJson(q));
        expect(page.json).toBe(await postgresJson(q));
        const parsed = JSON.parse(page.json) as Array<Record<string, unknown>>;
        expect(parsed).toHaveLength(page.count);
        // every field present, in field order
        for (const record of parsed)
          expect(Object.keys(record)).toEqual(Object.keys(RESOURCE_TABLES[resource].columns));
        const last = parsed.at(-1);
        expect(page.last).toEqual(
          last && { createdAt: last['created_at'] as string, id: last['id'] as string },
        );
        records += page.count;
        pages += 1;
        after = page.count === LIMIT ? page.last : undefined;
      } while (after);
      // every row of the resource was read (campaigns: the fixtures' parent campaigns too)
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from ${RESOURCE_TABLES[resource].table} where brand_id = $1`,
        [BRAND],
      );
      expect(records).toBe(rows[0]!.n);
      expect(pages).toBeGreaterThan(1);
    },
  );

  it('carries the hostile values exactly, and nulls as null', async () => {
    const page = await selectPageJson(db.pool, {
      brandId: BRAND,
      resource: 'submissions',
      limit: 200,
      since: undefined,
      after: undefined,
    });
    const records = JSON.parse(page.json) as Array<Record<string, unknown>>;
    const seen = new Set(records.flatMap((r) => [r['creator_handle'], r['content_url']]));
    for (const text of HOSTILE) expect(seen).toContain(text);
    expect(records.some((r) => r['reviewed_at'] === null && r['rejection_reason'] === null)).toBe(
      true,
    );
    expect(records.map((r) => r['views'])).toContain(2 ** 53 - 1);
    const campaigns = await selectPageJson(db.pool, {
      brandId: BRAND,
      resource: 'campaigns',
      limit: 200,
      since: undefined,
      after: undefined,
    });
    expect(campaigns.json).toContain(
      '"platforms":["\\"q\\"","a,b","{x}","back\\\\slash","NULL",null,""]',
    );
  });

  it('writes counters above 2^53 as before: the nearest double, as a JSON integer', async () => {
    // PostgreSQL holds the exact bigint; the wire has always carried it as a float8 (the
    // select list's cast) written as JavaScript writes that double, so 2^63 - 1 reads as
    // 9223372036854776000 (2^63's shortest digits), never as 9.223372036854776e+18
    await db.pool.query(
      `update submissions set views = 9223372036854775807
       where id = (select id from submissions where brand_id = $1 order by created_at desc, id desc limit 1)`,
      [BRAND],
    );
    const q: PageQuery = {
      brandId: BRAND,
      resource: 'submissions',
      limit: 1,
      since: undefined,
      after: undefined,
    };
    const page = await selectPageJson(db.pool, q);
    expect(page.json).toContain('"views":9223372036854776000,');
    expect(page.json).toBe(await pgObjectsJson(q));
  });

  it('cannot be handed a lone surrogate: a UTF-8 column stores U+FFFD instead', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      `update deposits set reference = $2
       where id = (select id from deposits where brand_id = $1 order by created_at desc, id desc limit 1)
       returning id`,
      [BRAND, 'lone \ud800 surrogate'],
    );
    const page = await selectPageJson(db.pool, {
      brandId: BRAND,
      resource: 'deposits',
      limit: 1,
      since: undefined,
      after: undefined,
    });
    const [record] = JSON.parse(page.json) as Array<Record<string, unknown>>;
    expect(record!['id']).toBe(rows[0]!.id);
    expect(record!['reference']).toBe('lone \ufffd surrogate');
  });
});
