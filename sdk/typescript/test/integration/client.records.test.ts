// Every read method of @brand-records/client against the running system (records service + gateway
// on a fresh database): the six typed pages with their meta, the cursor walk, since, and the typed
// errors the gateway really sends.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BrandRecords,
  ConnectionError,
  InvalidCursorError,
  InvalidKeyError,
  InvalidParameterError,
  RESOURCE_NAMES,
  TimeoutError,
} from '@brand-records/client';
import { makeBrandWithKey, makeRecords, startStack, waitFor, type Stack } from '@brand/testkit';

let stack: Stack;
let client: BrandRecords;
let brandId: string;
let apiKey: string;
/** Ids each resource lists, newest first. */
const expected: Record<string, string[]> = {};

beforeAll(async () => {
  stack = await startStack();
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  brandId = brand.brand.id;
  apiKey = brand.secret;
  client = new BrandRecords({ apiKey, baseUrl: stack.gateway.url });
  const made: Record<string, Array<{ id: string }>> = {
    submissions: await makeRecords(stack.db.pool, brandId, 'submissions', 230),
    payouts: await makeRecords(stack.db.pool, brandId, 'payouts', 4),
    deposits: await makeRecords(stack.db.pool, brandId, 'deposits', 3),
    conversions: await makeRecords(stack.db.pool, brandId, 'conversions', 3),
    links: await makeRecords(stack.db.pool, brandId, 'links', 3),
  };
  for (const [resource, rows] of Object.entries(made)) expected[resource] = rows.map((r) => r.id);
  // Every resource that needs one got its own campaign: list them through the API itself.
  const campaigns = await stack.db.pool.query<{ id: string }>(
    'select id from records.campaigns where brand_id = $1 order by created_at desc, id desc',
    [brandId],
  );
  expected.campaigns = campaigns.rows.map((r) => r.id);
});
afterAll(async () => {
  await stack?.close();
});

describe('list', () => {
  it.each(RESOURCE_NAMES)('%s: the typed envelope and its meta', async (resource) => {
    const page = await client[resource].list({ limit: 200 });
    expect(page.resource).toBe(resource);
    expect(page.data.map((r) => r.id)).toEqual(expected[resource]!.slice(0, 200));
    expect(page.count).toBe(page.data.length);
    expect(page.meta.status).toBe(200);
    expect(page.meta.requestId).toMatch(/\S{8,}/);
    expect(page.meta.rateLimit).toMatchObject({ policy: 'brand', limit: 240, window: 60 });
    expect(page.meta.rateLimit!.remaining).toBeLessThan(240);
  });

  it('pages by cursor: a full page has next_cursor, the last page none', async () => {
    const first = await client.submissions.list({ limit: 200 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await client.submissions.list({ limit: 200, cursor: first.next_cursor! });
    expect(second.next_cursor).toBeUndefined();
    expect([...first.data, ...second.data].map((s) => s.id)).toEqual(expected.submissions);
    // the record types come from the OpenAPI document: a submission has its documented fields
    const s = first.data[0]!;
    expect(['pending', 'approved', 'rejected']).toContain(s.status);
    expect(s.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('filters by since (a Date or a string), exclusive', async () => {
    const all = (await client.submissions.list({ limit: 200 })).data;
    const pivot = all[9]!;
    const fromString = await client.submissions.list({ since: pivot.created_at });
    expect(fromString.data.map((s) => s.id)).toEqual(expected.submissions!.slice(0, 9));
    const fromDate = await client.submissions.list({
      since: new Date(Date.parse(pivot.created_at) - 1),
    });
    expect(fromDate.data.map((s) => s.id)).toContain(pivot.id);
  });
});

describe('all', () => {
  it('walks every submission exactly once, newest first, at any page size', async () => {
    for (const limit of [200, 7]) {
      const seen: string[] = [];
      for await (const s of client.submissions.all({ limit })) seen.push(s.id);
      expect(seen).toEqual(expected.submissions);
    }
  });

  it('walks only the records created after since', async () => {
    const all = (await client.submissions.list({ limit: 200 })).data;
    const seen: string[] = [];
    for await (const s of client.submissions.all({ since: all[49]!.created_at, limit: 20 }))
      seen.push(s.id);
    expect(seen).toEqual(expected.submissions!.slice(0, 49));
  });

  it('walks an empty resource as nothing', async () => {
    const other = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const empty = new BrandRecords({ apiKey: other.secret, baseUrl: stack.gateway.url });
    const seen: unknown[] = [];
    for await (const p of empty.payouts.all()) seen.push(p);
    expect(seen).toEqual([]);
  });
});

describe('typed errors from the gateway', () => {
  it('InvalidKeyError for an unknown key, with the request id', async () => {
    const stranger = new BrandRecords({
      apiKey: `bk_live_${'x'.repeat(32)}`,
      baseUrl: stack.gateway.url,
    });
    const error = await stranger.campaigns.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidKeyError);
    expect(error).toMatchObject({ code: 'invalid_key', status: 401 });
    expect((error as InvalidKeyError).requestId).toMatch(/\S{8,}/);
  });

  it('InvalidParameterError with details for a limit over 200, sent once', async () => {
    const error = await client.links.list({ limit: 201 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).details).toEqual([
      expect.objectContaining({ field: 'limit' }),
    ]);
  });

  it('InvalidCursorError for a cursor of another resource', async () => {
    const page = await client.submissions.list({ limit: 1 });
    await expect(client.payouts.list({ cursor: page.next_cursor! })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it('ConnectionError when nothing listens, after its retries', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const attempts: number[] = [];
    const offline = new BrandRecords({
      apiKey,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 2,
      retry: { baseDelayMs: 10 },
      fetch: (input, init) => {
        attempts.push(Date.now());
        return fetch(input, init);
      },
    });
    await expect(offline.payouts.list()).rejects.toBeInstanceOf(ConnectionError);
    expect(attempts).toHaveLength(3);
  });

  it('TimeoutError when the server never answers', async () => {
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = hanging.address() as AddressInfo;
      const slow = new BrandRecords({
        apiKey,
        baseUrl: `http://127.0.0.1:${port}`,
        timeoutMs: 200,
        maxRetries: 0,
      });
      await expect(slow.payouts.list()).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });
});

describe('poll (issue 18)', () => {
  it('answers NotModified while the page is unchanged, and the new page after a change', async () => {
    const first = await client.deposits.poll({ limit: 10 });
    if (first.notModified) throw new Error('a poll without an ETag is always a page');
    expect(first.meta.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // the brand's first page writes its change version back to Redis; then 304s come
    const unchanged = await waitFor(async () => {
      const r = await client.deposits.poll({ limit: 10, etag: first.meta.etag });
      return r.notModified ? r : undefined;
    });
    expect(unchanged.meta).toMatchObject({ status: 304, etag: first.meta.etag });
    await makeRecords(stack.db.pool, brandId, 'deposits', 1);
    const changed = await waitFor(
      async () => {
        const r = await client.deposits.poll({ limit: 10, etag: first.meta.etag });
        return r.notModified ? undefined : r;
      },
      { timeoutMs: 5_000, what: 'the new deposit changes the page' },
    );
    expect(changed.count).toBe(first.count + 1);
    expect(changed.meta.etag).not.toBe(first.meta.etag);
  });
});
