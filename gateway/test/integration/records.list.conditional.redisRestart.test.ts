import {
  makeBrandWithKey,
  makePendingSubmissions,
  startOwnRedis,
  startStack,
  waitFor,
  type BrandWithKey,
  type OwnRedis,
  type Stack,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';

// A Redis restart (empty, as without persistence) never yields a stale 304. The change versions
// live in Redis; while it is down the gateways do not know them and serve every page whole, and a
// change made meanwhile (its publish lost) shows in the first page served after the restart,
// through both gateways. Afterwards 304s resume (the gateways write back what they learn with a
// full page; records' sweep republishes recent changes). Its own Redis server: this test kills it.

let redis: OwnRedis;
let stack: Stack;
let apis: ApiClient[];
let brand: BrandWithKey;
let subs: Array<{ id: string }>;
const PATH = '/api/v1/submissions?limit=3';

beforeAll(async () => {
  redis = await startOwnRedis();
  stack = await startStack({
    gateways: 2,
    redisUrl: redis.url,
    // the sweep off: only the gateways' write-back can bring the version back
    recordsEnv: { CHANGE_VERSION_SWEEP_MS: '0' },
  });
  apis = stack.gateways.map((g) => new ApiClient(g.url));
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  subs = await makePendingSubmissions(stack.db.pool, brand.brand.id, 4);
});

afterAll(async () => {
  await stack?.close();
  await redis?.kill();
});

const poll = (api: ApiClient, etag?: string): Promise<ApiResponse> =>
  api.get(PATH, { key: brand.secret, headers: etag ? { 'If-None-Match': etag } : {} });

it('never answers 304 for a page that changed while Redis was down, and resumes 304s after', async () => {
  const first = await poll(apis[0]!);
  const etag = first.headers.get('etag')!;
  await waitFor(async () => {
    for (const api of apis) expect((await poll(api, etag)).status).toBe(304);
    return true;
  });

  await redis.kill();
  // down: no version is known, every page is served whole (never a 304 on a guess)
  for (const api of apis) {
    const res = await poll(api, etag);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etag);
  }
  // a change whose publish is lost
  await stack.admin.records('approveSubmission', { submission_id: subs[0]!.id });
  const seen: number[] = [];
  for (const api of apis) {
    const res = await poll(api, etag);
    seen.push(res.status);
    expect(res.headers.get('etag')).not.toBe(etag);
  }

  await redis.start();
  // through the reconnection and after it, the old tag never matches again
  let fresh: string | undefined;
  await waitFor(
    async () => {
      for (const api of apis) {
        const res = await poll(api, etag);
        seen.push(res.status);
        fresh = res.headers.get('etag') ?? undefined;
        expect(fresh).not.toBe(etag);
      }
      for (const api of apis) expect((await poll(api, fresh)).status).toBe(304);
      return true;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: '304s resume after the restart' },
  );
  expect(seen.every((s) => s === 200)).toBe(true);
  const page = await poll(apis[1]!, etag);
  expect((page.body as { data: Array<{ id: string; status: string }> }).data[0]).toMatchObject({
    id: subs[0]!.id,
    status: 'approved',
  });
});
