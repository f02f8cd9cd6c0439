import { RESOURCES } from '@brand/shared/resources';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';

interface Page {
  resource: string;
  count: number;
  data: Array<Record<string, unknown>>;
  next_cursor?: string;
}

let stack: Stack;
let api: ApiClient;
let key: string;
let emptyKey: string;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = seeded.secret;
  for (const resource of RESOURCES) await makeRecords(stack.db.pool, seeded.brand.id, resource, 3);
  emptyKey = (await makeBrandWithKey(stack.admin, { tier: 'enterprise' })).secret;
});

afterAll(() => stack?.close());

describe('GET /api/v1/{resource} envelope (docs/contract.md#list-envelope)', () => {
  it.each(RESOURCES)(
    '%s answers {resource, count, data} with count = data.length',
    async (resource) => {
      const res = await api.get<Page>(`/api/v1/${resource}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.resource).toBe(resource);
      expect(res.body.count).toBe(res.body.data.length);
      expect(res.body.count).toBeGreaterThanOrEqual(3);
      expect(res.body.next_cursor).toBeUndefined();
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('ratelimit-policy')).toBe('"brand";q=240;w=60');
    },
  );

  it.each(RESOURCES)('%s of a brand without records is an empty page', async (resource) => {
    const res = await api.get<Page>(`/api/v1/${resource}`, { key: emptyKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resource, count: 0, data: [] });
  });

  it('absent optional values are null, never missing', async () => {
    const res = await api.get<Page>('/api/v1/payouts', { key });
    for (const payout of res.body.data) {
      expect(Object.keys(payout)).toEqual(
        expect.arrayContaining(['paid_at', 'failure_reason', 'submission_id']),
      );
    }
  });

  it('an unknown resource is 404 unknown_resource once authenticated', async () => {
    const res = await api.get<{ error: { code: string } }>('/api/v1/widgets', { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('unknown_resource');
  });

  it('authentication comes first: an unknown resource without a key is 401', async () => {
    const res = await api.get<{ error: { code: string } }>('/api/v1/widgets');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_key');
  });

  it('echoes a safe caller X-Request-Id and mints one otherwise', async () => {
    const mine = await api.get('/api/v1/links', {
      key,
      headers: { 'X-Request-Id': 'trace-1234-abcd' },
    });
    expect(mine.headers.get('x-request-id')).toBe('trace-1234-abcd');
    const unsafe = await api.get('/api/v1/links', {
      key,
      headers: { 'X-Request-Id': 'bad id with spaces' },
    });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{20}$/);
  });

  it('the API is read-only: POST to a resource is 405 with Allow', async () => {
    const res = await api.post<{ error: { code: string } }>('/api/v1/campaigns', { key, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('a path with malformed percent-encoding is 400 malformed_request, never a 500', async () => {
    for (const path of ['/api/v1/%E0%A4%A', '/api/v1/%E0%A4%A/rec_1']) {
      const res = await api.get<{ error: { code: string } }>(path, { key });
      expect({ path, status: res.status, code: res.body.error.code }).toEqual({
        path,
        status: 400,
        code: 'malformed_request',
      });
      // Without a key, 401 like every path under /api/v1, and counted against the address (a
      // hostile review, 2026-11-29: the path was read before the key, and answered 400 unmetered).
      const keyless = await api.get<{ error: { code: string } }>(path);
      expect({ path, status: keyless.status }).toEqual({ path, status: 401 });
    }
  });

  it('with a key, an unknown path outside the API is 404 not_found (without one, 401: publicListener.keyless)', async () => {
    const res = await api.get<{ error: { code: string } }>('/nothing/here', { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    // Counted against the brand like every request its key makes (a hostile review,
    // 2026-11-29: it was counted nowhere).
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"brand";/);
  });
});
