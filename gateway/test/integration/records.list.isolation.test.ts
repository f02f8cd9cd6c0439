import { RESOURCES } from '@brand/shared/resources';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';

interface Page {
  data: Array<{ id: string }>;
  next_cursor?: string;
}

const BRANDS = 8;

let stack: Stack;
let api: ApiClient;
const tenants: Array<{ brandId: string; key: string; ids: Set<string> }> = [];

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  for (let i = 0; i < BRANDS; i++) {
    const b = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const ids = new Set<string>();
    for (const resource of RESOURCES) {
      // Interleaved timestamps across brands, so a missing brand filter would surely show.
      const rows = await makeRecords(stack.db.pool, b.brand.id, resource, 12);
      for (const r of rows) ids.add(r.id);
    }
    // the parent campaigns makeRecords creates belong to the brand too
    const campaigns = await stack.db.pool.query<{ id: string }>(
      'select id from campaigns where brand_id = $1',
      [b.brand.id],
    );
    for (const c of campaigns.rows) ids.add(c.id);
    tenants.push({ brandId: b.brand.id, key: b.secret, ids });
  }
});

afterAll(() => stack?.close());

describe('brand isolation (docs/contract.md#scope-and-rules, #authentication)', () => {
  it('every key sees exactly its own brand across all resources and pages', async () => {
    for (const tenant of tenants) {
      const seen = new Set<string>();
      for (const resource of RESOURCES) {
        let cursor: string | undefined;
        do {
          const q = `limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const res = await api.get<Page>(`/api/v1/${resource}?${q}`, { key: tenant.key });
          expect(res.status).toBe(200);
          for (const r of res.body.data) seen.add(r.id);
          cursor = res.body.next_cursor;
        } while (cursor);
      }
      expect(seen).toEqual(tenant.ids);
    }
  });

  it('no parameter switches the brand: brand_id and similar are refused', async () => {
    const [a, b] = tenants;
    for (const param of ['brand_id', 'brand', 'brandId', 'tenant']) {
      const res = await api.get<{ error: { code: string } }>(
        `/api/v1/campaigns?${param}=${b!.brandId}`,
        { key: a!.key },
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
    }
  });

  it("a cursor taken from another brand's walk is refused, not followed", async () => {
    const [a, b] = tenants;
    const bPage = await api.get<Page>('/api/v1/submissions?limit=3', { key: b!.key });
    const res = await api.get<{ error: { code: string } }>(
      `/api/v1/submissions?cursor=${encodeURIComponent(bPage.body.next_cursor!)}`,
      { key: a!.key },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it("answers another brand's cursor in the very words of a malformed one", async () => {
    // records refused a foreign cursor without the details the gateway gives a malformed one
    // (a hostile review, 2026-11-30): a client's error handling saw two shapes of one error
    const [a, b] = tenants;
    const bPage = await api.get<Page>('/api/v1/links?limit=3', { key: b!.key });
    type Refusal = { error: { code: string; message: string; details?: unknown } };
    const foreign = await api.get<Refusal>(
      `/api/v1/links?cursor=${encodeURIComponent(bPage.body.next_cursor!)}`,
      { key: a!.key },
    );
    const malformed = await api.get<Refusal>('/api/v1/links?cursor=', { key: a!.key });
    expect([foreign.status, malformed.status]).toEqual([400, 400]);
    const words = (r: Refusal) => ({
      code: r.error.code,
      message: r.error.message,
      details: r.error.details,
    });
    expect(words(foreign.body)).toEqual(words(malformed.body));
    expect(foreign.body.error.details).toEqual([
      { field: 'cursor', message: expect.stringContaining('is not a next_cursor') as unknown },
    ]);
  });

  it('a since far in the past still returns only the own brand', async () => {
    const [a] = tenants;
    const res = await api.get<Page>('/api/v1/links?limit=200&since=1970-01-01T00:00:00Z', {
      key: a!.key,
    });
    expect(res.body.data.every((r) => a!.ids.has(r.id))).toBe(true);
    expect(res.body.data).toHaveLength(12);
  });
});
