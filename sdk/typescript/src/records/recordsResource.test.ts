import { InvalidCursorError, RateLimitedError } from '../errors/codeErrors';
import { errorBody, pageBody, type RecordedRequest, type StubAnswer } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import { RecordsResource, WALK_PAGE_SIZE, WALK_RATE_LIMIT_WAITS } from './recordsResource';

/** A fake API over `total` records (newest first, ids r0, r1, ...) that pages by cursor = offset. */
function pagingApi(total: number, opts: { refuse?: (n: number) => StubAnswer | undefined } = {}) {
  let n = 0;
  return (req: RecordedRequest): StubAnswer => {
    n++;
    const refusal = opts.refuse?.(n);
    if (refusal) return refusal;
    const limit = Number(req.url.searchParams.get('limit') ?? 50);
    const offset = Number(req.url.searchParams.get('cursor') ?? 0);
    const ids = Array.from(
      { length: Math.max(0, Math.min(limit, total - offset)) },
      (_, i) => `r${offset + i}`,
    );
    // Like the API: next_cursor only on a full page.
    const next = ids.length === limit ? String(offset + limit) : undefined;
    return { status: 200, body: pageBody('submissions', ids, next) };
  };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const ids = (records: Array<{ id?: unknown }>) => records.map((r) => r.id);

describe('RecordsResource.list', () => {
  it('asks for one page with limit, cursor and since (a Date as RFC 3339)', async () => {
    const { transport, requests } = testTransport([
      {
        status: 200,
        body: pageBody('submissions', ['a', 'b'], 'c2'),
        headers: { 'x-request-id': 'req_1' },
      },
    ]);
    const page = await new RecordsResource(transport, 'submissions').list({
      limit: 2,
      cursor: 'abc',
      since: new Date('2026-11-01T00:00:00Z'),
    });
    expect(requests[0]!.url.pathname).toBe('/api/v1/submissions');
    expect(Object.fromEntries(requests[0]!.url.searchParams)).toEqual({
      limit: '2',
      cursor: 'abc',
      since: '2026-11-01T00:00:00.000Z',
    });
    expect(page).toMatchObject({ resource: 'submissions', count: 2, next_cursor: 'c2' });
    expect(ids(page.data)).toEqual(['a', 'b']);
    expect(page.meta.requestId).toBe('req_1');
  });

  it('sends no parameters it was not given', async () => {
    const { transport, requests } = testTransport([{ status: 200, body: pageBody('links', []) }]);
    await new RecordsResource(transport, 'links').list();
    expect(requests[0]!.url.search).toBe('');
  });

  it('throws the typed error of a refused page', async () => {
    const { transport } = testTransport([{ status: 400, body: errorBody('invalid_cursor') }]);
    await expect(
      new RecordsResource(transport, 'payouts').list({ cursor: 'x' }),
    ).rejects.toBeInstanceOf(InvalidCursorError);
  });
});

describe('RecordsResource.poll', () => {
  it('sends If-None-Match with the held ETag and answers NotModified to a 304', async () => {
    const { transport, requests } = testTransport([
      { status: 200, body: pageBody('submissions', ['a']), headers: { etag: '"v1"' } },
      { status: 304, headers: { etag: '"v1"', ratelimit: '"brand";r=58;t=60' } },
    ]);
    const resource = new RecordsResource(transport, 'submissions');
    const first = await resource.poll({ limit: 1 });
    expect(requests[0]!.headers.get('if-none-match')).toBeNull();
    if (first.notModified) throw new Error('the first poll has no ETag to match');
    expect(first.meta.etag).toBe('"v1"');
    expect(ids(first.data)).toEqual(['a']);
    const second = await resource.poll({ limit: 1, etag: first.meta.etag });
    expect(requests[1]!.headers.get('if-none-match')).toBe('"v1"');
    expect(second).toMatchObject({ notModified: true, meta: { status: 304, etag: '"v1"' } });
    expect(second.meta.rateLimit?.remaining).toBe(58);
  });

  it('answers the new page when it changed, and list() still treats a 304 as an error', async () => {
    const { transport } = testTransport([
      { status: 200, body: pageBody('links', ['b']), headers: { etag: '"v2"' } },
      { status: 304, headers: { etag: '"v2"' } },
    ]);
    const resource = new RecordsResource(transport, 'links');
    const changed = await resource.poll({ etag: '"v1"' });
    expect(changed).toMatchObject({ notModified: false, meta: { etag: '"v2"' } });
    await expect(resource.list()).rejects.toThrow();
  });
});

describe('RecordsResource.all', () => {
  it('walks the cursor and yields every record once, in order, at the maximum page size by default', async () => {
    const { transport, requests } = testTransport(pagingApi(450));
    const records = await collect(new RecordsResource(transport, 'submissions').all());
    expect(ids(records)).toEqual(Array.from({ length: 450 }, (_, i) => `r${i}`));
    expect(requests.map((r) => r.url.searchParams.get('cursor'))).toEqual([null, '200', '400']);
    expect(requests.every((r) => r.url.searchParams.get('limit') === String(WALK_PAGE_SIZE))).toBe(
      true,
    );
  });

  it('stops on a short page without asking for another', async () => {
    const { transport, requests } = testTransport(pagingApi(25));
    const records = await collect(new RecordsResource(transport, 'submissions').all({ limit: 10 }));
    expect(records).toHaveLength(25);
    expect(requests).toHaveLength(3);
  });

  it('stops on a short page even if it (wrongly) carried next_cursor', async () => {
    const { transport, requests } = testTransport([
      { status: 200, body: pageBody('submissions', ['a', 'b'], 'more') },
      { status: 200, body: pageBody('submissions', ['c']) },
    ]);
    const records = await collect(new RecordsResource(transport, 'submissions').all({ limit: 5 }));
    expect(ids(records)).toEqual(['a', 'b']);
    expect(requests).toHaveLength(1);
  });

  it('ends after an exactly full last page with the empty page that follows', async () => {
    const { transport, requests } = testTransport(pagingApi(20));
    const records = await collect(new RecordsResource(transport, 'submissions').all({ limit: 10 }));
    expect(records).toHaveLength(20);
    expect(requests).toHaveLength(3);
  });

  it('keeps `since` on every page and starts after a given cursor', async () => {
    const { transport, requests } = testTransport(pagingApi(30));
    await collect(
      new RecordsResource(transport, 'submissions').all({
        since: '2026-11-01T00:00:00Z',
        limit: 10,
        cursor: '10',
      }),
    );
    expect(requests.map((r) => r.url.searchParams.get('cursor'))).toEqual(['10', '20', '30']);
    expect(requests.every((r) => r.url.searchParams.get('since') === '2026-11-01T00:00:00Z')).toBe(
      true,
    );
  });

  it('waits out a 429 mid-walk (never sooner than Retry-After) and finishes with every record once', async () => {
    const rateLimited: StubAnswer = {
      status: 429,
      body: errorBody('rate_limited'),
      headers: { 'retry-after': '4' },
    };
    const { transport, sleeps } = testTransport(
      pagingApi(95, { refuse: (n) => (n === 3 || n === 4 ? rateLimited : undefined) }),
    );
    const records = await collect(new RecordsResource(transport, 'submissions').all({ limit: 20 }));
    expect(ids(records)).toEqual(Array.from({ length: 95 }, (_, i) => `r${i}`));
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms >= 4_000)).toBe(true);
  });

  it('keeps waiting past the client retries while the budget stays spent, then gives up', async () => {
    const rateLimited: StubAnswer = {
      status: 429,
      body: errorBody('rate_limited'),
      headers: { 'retry-after': '1' },
    };
    // maxRetries 0: every wait is the walk's own.
    const recovering = testTransport(
      pagingApi(30, { refuse: (n) => (n >= 2 && n <= 4 ? rateLimited : undefined) }),
      {
        maxRetries: 0,
      },
    );
    const records = await collect(
      new RecordsResource(recovering.transport, 'submissions').all({ limit: 10 }),
    );
    expect(records).toHaveLength(30);
    expect(recovering.sleeps).toEqual([1_000, 1_000, 1_000]);

    const stuck = testTransport([rateLimited], { maxRetries: 0 });
    await expect(
      collect(new RecordsResource(stuck.transport, 'submissions').all()),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(stuck.requests).toHaveLength(WALK_RATE_LIMIT_WAITS + 1);
  });

  it('throws a Retry-After beyond maxRetryAfterSeconds at once, as the client does (README retries)', async () => {
    const { transport, requests, sleeps } = testTransport([
      { status: 429, body: errorBody('rate_limited'), headers: { 'retry-after': '3600' } },
    ]);
    await expect(
      collect(new RecordsResource(transport, 'submissions').all()),
    ).rejects.toMatchObject({ retryAfterSeconds: 3600 });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('pages() yields each page with its meta', async () => {
    const { transport } = testTransport(pagingApi(15));
    const pages = await collect(new RecordsResource(transport, 'submissions').pages({ limit: 10 }));
    expect(pages.map((p) => p.count)).toEqual([10, 5]);
    expect(pages.every((p) => p.meta.status === 200)).toBe(true);
  });
});
