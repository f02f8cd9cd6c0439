import {
  formatMicros,
  makeBrandWithKey,
  makeRecords,
  parseMicros,
  startStack,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';

interface Page {
  resource: string;
  count: number;
  data: Array<{ id: string; created_at: string; status?: string }>;
  next_cursor?: string;
}
let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
});

afterAll(() => stack?.close());

/** Walks a listing to its end; `between` runs after each page (to change data mid-walk). */
async function walk(
  key: string,
  path: string,
  between?: (pageIndex: number) => Promise<void>,
): Promise<Page[]> {
  const pages: Page[] = [];
  let url = path;
  for (;;) {
    const res = await api.get<Page>(url, { key });
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (!res.body.next_cursor) return pages;
    await between?.(pages.length);
    const sep = path.includes('?') ? '&' : '?';
    url = `${path}${sep}cursor=${encodeURIComponent(res.body.next_cursor)}`;
  }
}

describe('limit (docs/contract.md#reading-records, #limits)', () => {
  let key: string;
  beforeAll(async () => {
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    key = b.secret;
    await makeRecords(stack.db.pool, b.brand.id, 'deposits', 205);
  });

  it('defaults to 50, and a full page carries next_cursor', async () => {
    const res = await api.get<Page>('/api/v1/deposits', { key });
    expect(res.body.count).toBe(50);
    expect(res.body.next_cursor).toEqual(expect.any(String));
  });

  it('accepts up to 200', async () => {
    const res = await api.get<Page>('/api/v1/deposits?limit=200', { key });
    expect(res.body.count).toBe(200);
    expect(res.body.next_cursor).toEqual(expect.any(String));
  });

  it('a page shorter than the limit is the last and has no next_cursor', async () => {
    const res = await api.get<Page>('/api/v1/deposits?limit=150', { key });
    const next = await api.get<Page>(
      `/api/v1/deposits?limit=150&cursor=${encodeURIComponent(res.body.next_cursor!)}`,
      { key },
    );
    expect(next.body.count).toBe(55);
    expect(next.body).not.toHaveProperty('next_cursor');
  });

  it('a full last page still carries a cursor, which then yields an empty page', async () => {
    const first = await api.get<Page>('/api/v1/deposits?limit=205', { key });
    expect(first.status).toBe(400);
    const pages = await walk(key, '/api/v1/deposits?limit=41');
    expect(pages.map((p) => p.count)).toEqual([41, 41, 41, 41, 41, 0]);
    expect(pages[5]).toEqual({ resource: 'deposits', count: 0, data: [] });
  });

  it.each(['0', '201', '-1', '1.5', 'abc', '', ' 5', '1e2', '0x10'])(
    'limit=%j is 400 invalid_parameter',
    async (limit) => {
      const res = await api.get<ErrorBody>(`/api/v1/deposits?limit=${encodeURIComponent(limit)}`, {
        key,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
      expect(res.body.error.details?.[0]?.field).toBe('limit');
    },
  );

  it('a repeated parameter is 400, not silently one of them', async () => {
    const res = await api.get<ErrorBody>('/api/v1/deposits?limit=5&limit=6', { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
  });

  it('an unknown parameter is 400 naming it (typos surface)', async () => {
    const res = await api.get<ErrorBody>('/api/v1/deposits?limt=5', { key });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/limt/);
  });
});

describe('walking the cursor (docs/contract.md#reading-records rule 2)', () => {
  it('returns 1,000+ records exactly once, newest first, while records are added and change status', async () => {
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    // 1,050 submissions, in runs of 7 sharing one created_at.
    const base = Date.now() * 1000 - 10_000_000_000;
    const rows = await makeRecords(stack.db.pool, b.brand.id, 'submissions', 1_050, (i) => ({
      created_at: formatMicros(base - Math.floor(i / 7) * 1_000_123),
      status: 'pending',
    }));
    const expectedIds = rows.map((r) => r.id);
    const campaignId = rows[0]!.campaign_id;

    const pages = await walk(b.secret, '/api/v1/submissions?limit=100', async (pageIndex) => {
      // Newer records arrive mid-walk, some with a created_at equal to one already read...
      await makeRecords(stack.db.pool, b.brand.id, 'submissions', 5, (i) => ({
        campaign_id: campaignId,
        created_at: i === 0 ? rows[0]!.created_at : formatMicros(Date.now() * 1000 + i),
      }));
      // ...and older records change status, both already-read and not-yet-read ones.
      await stack.db.pool.query(
        `update submissions set status = 'approved', updated_at = now() where id = any($1::text[])`,
        [[expectedIds[pageIndex * 100 - 3], expectedIds[pageIndex * 100 + 50]].filter(Boolean)],
      );
    });

    const seen = pages.flatMap((p) => p.data.map((r) => r.id));
    expect(new Set(seen).size).toBe(seen.length);
    // The inserted row sharing rows[0]'s created_at sorts by id: it may land before or after
    // the cursor, exactly as a row inserted at that instant would. Every original row appears once.
    const originals = seen.filter((id) => expectedIds.includes(id));
    expect(originals).toEqual(expectedIds);
    expect(seen.length - originals.length).toBeLessThanOrEqual(1);
    expect(pages.slice(0, -1).every((p) => p.count === 100 && p.next_cursor)).toBe(true);
    expect(pages.at(-1)!.count).toBe(50);
    // Status changes are visible on records read after the change, and nothing reappears.
    expect(pages[1]!.data.find((r) => r.id === expectedIds[150])?.status).toBe('approved');
  });

  it('orders records sharing one created_at by id, across page boundaries', async () => {
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const same = formatMicros(Date.now() * 1000 - 5_000_000);
    const rows = await makeRecords(stack.db.pool, b.brand.id, 'links', 30, () => ({
      created_at: same,
    }));
    const pages = await walk(b.secret, '/api/v1/links?limit=7');
    const ids = pages
      .flatMap((p) => p.data.map((r) => r.id))
      .filter((id) => rows.some((r) => r.id === id));
    expect(ids).toEqual(rows.map((r) => r.id));
    expect([...ids].sort().reverse()).toEqual(ids);
  });
});

describe('since (docs/contract.md#reading-records, #versioning)', () => {
  let key: string;
  let rows: Array<{ id: string; created_at: string }>;
  beforeAll(async () => {
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    key = b.secret;
    rows = await makeRecords(stack.db.pool, b.brand.id, 'conversions', 120);
  });

  it('is an exclusive lower bound on created_at', async () => {
    const pivot = rows[40]!;
    const res = await api.get<Page>(`/api/v1/conversions?limit=200&since=${pivot.created_at}`, {
      key,
    });
    expect(res.body.data.map((r) => r.id)).toEqual(rows.slice(0, 40).map((r) => r.id));
  });

  it('keeps microsecond precision and accepts any time-zone offset', async () => {
    const pivot = rows[10]!;
    const micros = parseMicros(pivot.created_at);
    // The same instant written as +08:00, and one microsecond earlier (which includes the pivot).
    const local = new Date(Math.floor(micros / 1000) + 8 * 3_600_000).toISOString().slice(0, 23);
    const asPlus8 = `${local}${pivot.created_at.slice(23, 26)}+08:00`;
    const justBefore = formatMicros(micros - 1);
    const exclusive = await api.get<Page>(
      `/api/v1/conversions?limit=200&since=${encodeURIComponent(asPlus8)}`,
      { key },
    );
    const inclusive = await api.get<Page>(`/api/v1/conversions?limit=200&since=${justBefore}`, {
      key,
    });
    expect(exclusive.body.count).toBe(10);
    expect(inclusive.body.count).toBe(11);
  });

  it('combines with cursor, and a cursor keeps its since', async () => {
    const pivot = rows[75]!;
    const pages = await walk(key, `/api/v1/conversions?limit=20&since=${pivot.created_at}`);
    expect(pages.flatMap((p) => p.data.map((r) => r.id))).toEqual(
      rows.slice(0, 75).map((r) => r.id),
    );
    // The second page asked for with the cursor alone is still filtered.
    const first = pages[0]!;
    const pages2 = [];
    let cursor = first.next_cursor;
    while (cursor) {
      const res = await api.get<Page>(
        `/api/v1/conversions?limit=20&cursor=${encodeURIComponent(cursor)}`,
        { key },
      );
      pages2.push(...res.body.data.map((r) => r.id));
      cursor = res.body.next_cursor;
    }
    expect(pages2).toEqual(rows.slice(20, 75).map((r) => r.id));
  });

  it.each([
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-13-01T00:00:00Z',
    '2026-01-01T24:00:00Z',
  ])('since=%j is 400 invalid_parameter', async (since) => {
    const res = await api.get<ErrorBody>(`/api/v1/conversions?since=${encodeURIComponent(since)}`, {
      key,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.message).toMatch(/RFC 3339/);
  });
});

describe('cursor integrity (docs/contract.md#reading-records, #pagination)', () => {
  let keyA: string;
  let keyB: string;
  let cursorA: string;
  let cursorB: string;
  beforeAll(async () => {
    const a = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    keyA = a.secret;
    keyB = b.secret;
    await makeRecords(stack.db.pool, a.brand.id, 'payouts', 12);
    await makeRecords(stack.db.pool, b.brand.id, 'payouts', 12);
    cursorA = (await api.get<Page>('/api/v1/payouts?limit=5', { key: keyA })).body.next_cursor!;
    cursorB = (await api.get<Page>('/api/v1/payouts?limit=5', { key: keyB })).body.next_cursor!;
  });

  const flip = (s: string, at: number) =>
    s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);

  it('a real cursor works', async () => {
    const res = await api.get<Page>(
      `/api/v1/payouts?limit=5&cursor=${encodeURIComponent(cursorA)}`,
      { key: keyA },
    );
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
  });

  it.each([
    ['a tampered payload', (c: string) => flip(c, 5)],
    ['a tampered signature', (c: string) => flip(c, c.length - 3)],
    ['a truncated cursor', (c: string) => c.slice(0, c.length - 10)],
    ['the payload alone', (c: string) => c.split('.')[0]!],
    ['garbage', () => 'abc'],
    ['non-base64 text', () => 'not a cursor!'],
  ])('%s is 400 invalid_cursor', async (_name, mutate) => {
    const res = await api.get<ErrorBody>(
      `/api/v1/payouts?cursor=${encodeURIComponent(mutate(cursorA))}`,
      { key: keyA },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it("another brand's cursor is 400 invalid_cursor", async () => {
    const res = await api.get<ErrorBody>(`/api/v1/payouts?cursor=${encodeURIComponent(cursorB)}`, {
      key: keyA,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it("another resource's cursor is 400 invalid_cursor", async () => {
    const res = await api.get<ErrorBody>(`/api/v1/deposits?cursor=${encodeURIComponent(cursorA)}`, {
      key: keyA,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });
});
