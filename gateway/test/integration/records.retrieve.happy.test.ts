import { RESOURCES, type ResourceName } from '@brand/shared/resources';
import {
  makeBrandWithKey,
  makePendingSubmissions,
  makeRecords,
  scrapeMetric,
  startStack,
  waitFor,
  type BrandWithKey,
  type Stack,
  headerOf,
  sendRaw,
  type RawAnswer,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';

// GET /api/v1/{resource}/{id} answers the record in exactly the bytes a list page holds for it,
// with a strong ETag; a matching If-None-Match is 304 decided from the brand's change version (no
// records call, no query), and a change of the record gives a new tag.

let stack: Stack;
let api: ApiClient;
let brand: BrandWithKey;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.gateway.url);
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  for (const resource of RESOURCES) await makeRecords(stack.db.pool, brand.brand.id, resource, 3);
});

afterAll(() => stack?.close());

const ETAG = /^"[A-Za-z0-9_-]{27}"$/;

/** The header names of an answer, in the order they were sent. */
const names = (a: RawAnswer): string[] => a.headers.filter((_, i) => i % 2 === 0);

function get(path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api.get(path, { key: brand.secret, headers });
}

/** The list's first page of a resource, as JSON text per record (the bytes to compare with). */
async function listed(resource: ResourceName): Promise<Array<{ id: string; text: string }>> {
  const res = await get(`/api/v1/${resource}?limit=200`);
  expect(res.status).toBe(200);
  const data = (res.body as { data: Array<{ id: string }> }).data;
  return data.map((record) => ({ id: record.id, text: JSON.stringify(record) }));
}

const recordsCalls = (): Promise<number> =>
  scrapeMetric(
    stack.records.opsUrl,
    /^grpc_server_handled_total\{method="(ListRecordsPage|StreamRecordsPages)",/,
  );

describe('GET /api/v1/{resource}/{id}', () => {
  it.each(RESOURCES)(
    'answers every %s record in exactly the bytes of its list item, with a strong ETag',
    async (resource) => {
      const items = await listed(resource);
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        const res = await get(`/api/v1/${resource}/${item.id}`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(item.text);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(res.headers.get('etag')).toMatch(ETAG);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('ratelimit')).toMatch(/^"brand";r=\d+;t=\d+$/);
      }
    },
  );

  // HEAD, another case and a trailing slash are not in the OpenAPI document's paths: raw requests
  it('answers HEAD with the headers of GET and no body', async () => {
    const [item] = await listed('links');
    const auth = { authorization: `Bearer ${brand.secret}` };
    const head = await sendRaw(stack.gateway.url, 'HEAD', `/api/v1/links/${item!.id}`, auth);
    const full = await sendRaw(stack.gateway.url, 'GET', `/api/v1/links/${item!.id}`, auth);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(names(head)).toEqual(names(full));
    expect(headerOf(head, 'content-length')).toBe(String(Buffer.byteLength(full.body)));
    expect(headerOf(head, 'etag')).toBe(headerOf(full, 'etag'));
  });

  it('accepts the path in any case with a trailing slash and a percent-encoded id, as express would', async () => {
    const [item] = await listed('deposits');
    const encoded = item!.id.replace(/^dep_/, 'dep%5F');
    for (const path of [`/API/V1/deposits/${item!.id}/`, `/api/v1/deposits/${encoded}`]) {
      const res = await sendRaw(stack.gateway.url, 'GET', path, {
        authorization: `Bearer ${brand.secret}`,
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe(item!.text);
    }
  });

  it('answers 304 to a matching If-None-Match without a records call or a query', async () => {
    const [item] = await listed('payouts');
    const path = `/api/v1/payouts/${item!.id}`;
    const first = await get(path);
    const etag = first.headers.get('etag')!;
    const callsBefore = await recordsCalls();
    // any query of the table would wait for this lock, and the answer would be a 503
    const client = await stack.db.pool.connect();
    try {
      await client.query('begin');
      await client.query('lock table records.payouts in access exclusive mode');
      for (const sent of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const res = await get(path, { 'If-None-Match': sent });
        expect(res.status).toBe(304);
        expect(res.text).toBe('');
        expect(res.headers.get('etag')).toBe(etag);
        expect(res.headers.get('ratelimit')).toMatch(/^"brand";r=\d+;t=\d+$/);
      }
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(await recordsCalls()).toBe(callsBefore);
    // another record's tag, `*` and a foreign tag are not this record's: 200 with the record
    const [, other] = await listed('payouts');
    const otherTag = (await get(`/api/v1/payouts/${other!.id}`)).headers.get('etag')!;
    expect(otherTag).not.toBe(etag);
    for (const sent of [otherTag, '*', '"nope"']) {
      const res = await get(path, { 'If-None-Match': sent });
      expect(res.status).toBe(200);
      expect(res.text).toBe(item!.text);
    }
  });

  it('a status change of the record gives a new ETag and the new status at once', async () => {
    const [pending] = await makePendingSubmissions(stack.db.pool, brand.brand.id, 1);
    const path = `/api/v1/submissions/${pending!.id}`;
    const before = await waitFor(async () => {
      const res = await get(path);
      const again = await get(path, { 'If-None-Match': res.headers.get('etag')! });
      return again.status === 304 ? res : undefined;
    });
    expect((before.body as { status: string }).status).toBe('pending');
    await stack.admin.records('approveSubmission', { submission_id: pending!.id });
    // published before the RPC answered: no waiting
    const after = await get(path, { 'If-None-Match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toMatch(ETAG);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body).toMatchObject({ id: pending!.id, status: 'approved' });
    expect((await get(path, { 'If-None-Match': after.headers.get('etag')! })).status).toBe(304);
  });

  it('leaves the lists, their cursor and since exactly as they were', async () => {
    const page1 = await get('/api/v1/payouts?limit=2');
    expect(page1.status).toBe(200);
    const body = page1.body as { resource: string; count: number; next_cursor?: string };
    expect(body).toMatchObject({ resource: 'payouts', count: 2 });
    const page2 = await get(
      `/api/v1/payouts?limit=2&cursor=${encodeURIComponent(body.next_cursor!)}`,
    );
    expect(page2.status).toBe(200);
    expect((page2.body as { count: number }).count).toBeGreaterThan(0);
  });
});
