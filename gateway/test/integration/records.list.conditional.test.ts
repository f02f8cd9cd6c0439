import {
  makeBrandWithKey,
  makePendingSubmissions,
  makeRecords,
  scrapeMetric,
  startStack,
  waitFor,
  type BrandWithKey,
  type Stack,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';

// Conditional list requests over REST, two gateways on one stack (real PostgreSQL, Redis and
// records). Pages carry a strong ETag of exactly what they hold; If-None-Match that matches is 304
// with no body, decided from the brand's change version without a records call or a PostgreSQL
// query; any change of any record of the resource (on the first page, on page 3 of a walk, by any
// writer) gives new ETags, seen through both gateways.

let stack: Stack;
let apis: ApiClient[];
let brand: BrandWithKey;
let subs: Array<{ id: string }>;

const SWEEP_MS = 200;

beforeAll(async () => {
  stack = await startStack({
    gateways: 2,
    recordsEnv: { CHANGE_VERSION_SWEEP_MS: String(SWEEP_MS) },
  });
  apis = stack.gateways.map((g) => new ApiClient(g.url));
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  // 7 pending submissions: pages of 2 give a walk of 4 pages
  subs = await makePendingSubmissions(stack.db.pool, brand.brand.id, 7);
});

afterAll(() => stack?.close());

const ETAG = /^"[A-Za-z0-9_-]{27}"$/;

function poll(api: ApiClient, path: string, etag?: string, key = brand.secret) {
  return api.get(path, { key, headers: etag === undefined ? {} : { 'If-None-Match': etag } });
}

/** The current ETag of a page, once both gateways agree on it (a change may still be publishing). */
async function settledEtag(path: string): Promise<string> {
  return waitFor(async () => {
    const [a, b] = await Promise.all(apis.map((api) => poll(api, path)));
    expect(a!.status).toBe(200);
    expect(b!.status).toBe(200);
    const etag = a!.headers.get('etag');
    return etag !== null && etag === b!.headers.get('etag') ? etag : undefined;
  });
}

/** A page answers 304 to its ETag on both gateways (a brand's first page writes its version back). */
async function expectNotModifiedOnBoth(path: string, etag: string): Promise<ApiResponse[]> {
  return waitFor(async () => {
    const answers = await Promise.all(apis.map((api) => poll(api, path, etag)));
    for (const res of answers) expect(res.status).toBe(304);
    return answers;
  });
}

const listRecordsCalls = (): Promise<number> =>
  // pages travel on page streams (StreamRecordsPages); the unary ListRecordsPage counts too
  scrapeMetric(
    stack.records.opsUrl,
    /^grpc_server_handled_total\{method="(ListRecordsPage|StreamRecordsPages)",/,
  );

describe('ETag and If-None-Match on GET /api/v1/{resource}', () => {
  it('a page carries a strong ETag, the same through both gateways, one per query', async () => {
    const first = await settledEtag('/api/v1/submissions?limit=2');
    expect(first).toMatch(ETAG);
    expect(await settledEtag('/api/v1/submissions?limit=3')).not.toBe(first);
    expect(await settledEtag('/api/v1/campaigns?limit=2')).not.toBe(first);
    // the default limit and limit=50 are one query
    expect(await settledEtag('/api/v1/submissions')).toBe(
      await settledEtag('/api/v1/submissions?limit=50'),
    );
  });

  it('answers 304 to a matching If-None-Match through either gateway: no body, the same ETag, no-store, RateLimit', async () => {
    const path = '/api/v1/submissions?limit=2';
    const etag = await settledEtag(path);
    for (const res of await expectNotModifiedOnBoth(path, etag)) {
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('ratelimit')).toMatch(/^"brand";r=\d+;t=\d+$/);
      expect(res.headers.get('content-type')).toBeNull();
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    // RFC 9110 weak comparison, and a list
    for (const api of apis) {
      expect((await poll(api, path, `W/${etag}`)).status).toBe(304);
      expect((await poll(api, path, `"other", ${etag}`)).status).toBe(304);
      const other = await poll(api, path, '"other"');
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).toBe(etag);
      // `*` is ignored: a list page always exists
      expect((await poll(api, path, '*')).status).toBe(200);
      // another query's tag does not match this one
      expect((await poll(api, '/api/v1/submissions?limit=3', etag)).status).toBe(200);
    }
  });

  it('a 304 costs no records call and no PostgreSQL query', async () => {
    const path = '/api/v1/submissions?limit=2';
    const etag = await settledEtag(path);
    await expectNotModifiedOnBoth(path, etag);
    const callsBefore = await listRecordsCalls();
    // Hold an exclusive lock on the table: any query of it would wait, and the gateway would
    // answer 503 after its deadline. 304s still come at once.
    const client = await stack.db.pool.connect();
    try {
      await client.query('begin');
      await client.query('lock table records.submissions in access exclusive mode');
      for (let i = 0; i < 10; i++) {
        const started = Date.now();
        const res = await poll(apis[i % 2]!, path, etag);
        expect(res.status).toBe(304);
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(await listRecordsCalls()).toBe(callsBefore);
    // and the check can fail: a 200 is a records call
    expect((await poll(apis[0]!, path)).status).toBe(200);
    await waitFor(async () => (await listRecordsCalls()) === callsBefore + 1);
  });

  it('a status change of a record on the first page gives a new ETag on both gateways, at once', async () => {
    const path = '/api/v1/submissions?limit=2';
    const before = await settledEtag(path);
    await expectNotModifiedOnBoth(path, before);
    // the newest submission is the first page's first record
    await stack.admin.records('approveSubmission', { submission_id: subs[0]!.id });
    // published before the RPC answered: no waiting
    const answers = await Promise.all(apis.map((api) => poll(api, path, before)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).not.toBe(before);
      expect((res.body as { data: Array<{ id: string; status: string }> }).data[0]).toMatchObject({
        id: subs[0]!.id,
        status: 'approved',
      });
    }
    expect(answers[0]!.headers.get('etag')).toBe(answers[1]!.headers.get('etag'));
    await expectNotModifiedOnBoth(path, answers[0]!.headers.get('etag')!);
  });

  it('a status change of a record on page 3 of a walk gives pages 3 and 1 new ETags on both gateways', async () => {
    const pages: Array<{ path: string; etag: string }> = [];
    let path = '/api/v1/submissions?limit=2';
    for (let n = 1; n <= 3; n++) {
      const etag = await settledEtag(path);
      const res = await poll(apis[0]!, path);
      pages.push({ path, etag });
      const body = res.body as { data: Array<{ id: string }>; next_cursor: string };
      if (n === 3) expect(body.data.map((r) => r.id)).toContain(subs[4]!.id);
      path = `/api/v1/submissions?limit=2&cursor=${encodeURIComponent(body.next_cursor)}`;
    }
    for (const page of pages) await expectNotModifiedOnBoth(page.path, page.etag);

    await stack.admin.records('approveSubmission', { submission_id: subs[4]!.id });
    for (const page of [pages[2]!, pages[0]!]) {
      const answers = await Promise.all(apis.map((api) => poll(api, page.path, page.etag)));
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.headers.get('etag')).not.toBe(page.etag);
      }
    }
    const page3 = await poll(apis[1]!, pages[2]!.path);
    expect((page3.body as { data: Array<{ id: string; status: string }> }).data).toContainEqual(
      expect.objectContaining({ id: subs[4]!.id, status: 'approved' }),
    );
  });

  it('a write by any other writer (a row inserted straight into PostgreSQL) reaches the ETag within the sweep', async () => {
    const path = '/api/v1/deposits?limit=5';
    const before = await settledEtag(path);
    await expectNotModifiedOnBoth(path, before);
    await makeRecords(stack.db.pool, brand.brand.id, 'deposits', 1);
    for (const api of apis) {
      const res = await waitFor(
        async () => {
          const r = await poll(api, path, before);
          return r.status === 200 ? r : undefined;
        },
        { timeoutMs: 5_000, what: 'the inserted deposit changes the ETag' },
      );
      expect(res.headers.get('etag')).not.toBe(before);
      expect((res.body as { count: number }).count).toBe(1);
    }
  });

  it('a 304 counts against the rate limit, and a spent budget is 429 even for a matching poll', async () => {
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const path = '/api/v1/links?limit=1';
    const first = await poll(apis[0]!, path, undefined, plus.secret);
    const etag = first.headers.get('etag')!;
    const remaining = (res: ApiResponse): number =>
      Number(/;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
    let last = remaining(first);
    let notModified = 0;
    for (let i = 0; i < 70; i++) {
      const res = await poll(apis[i % 2]!, path, etag, plus.secret);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.headers.get('etag')).toBeNull();
        break;
      }
      expect(res.status).toBe(304);
      notModified++;
      expect(remaining(res)).toBe(last - 1);
      last = remaining(res);
    }
    // 60 a minute for Plus: the first page and 59 polls, then 429
    expect(notModified).toBe(59);
  });
});
