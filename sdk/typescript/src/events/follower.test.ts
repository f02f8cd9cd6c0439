import { CursorExpiredError, RateLimitedError } from '../errors/codeErrors';
import { errorBody, type RecordedRequest, type StubAnswer } from '../testing/fetchStub';
import { testTransport } from '../testing/testTransport';
import { EventsResource } from './eventsResource';
import { FROM_OLDEST, type FollowCheckpoint } from './followCheckpoint';

/** A fake feed of events e1..eN at positions 1..N that answers `after` pages and 304s. */
function feedApi(
  total: () => number,
  opts: { refuse?: (n: number) => StubAnswer | undefined } = {},
) {
  let n = 0;
  return (req: RecordedRequest): StubAnswer => {
    n++;
    const refusal = opts.refuse?.(n);
    if (refusal) return refusal;
    const after = Number(req.url.searchParams.get('after'));
    const limit = Number(req.url.searchParams.get('limit') ?? 50);
    const positions = Array.from({ length: total() }, (_, i) => i + 1).filter((p) => p > after);
    const page = positions.slice(0, limit);
    const etag = `"v${total()}a${after}"`;
    if (req.headers.get('if-none-match') === etag) return { status: 304, headers: { etag } };
    return {
      status: 200,
      headers: { etag },
      body: {
        resource: 'events',
        count: page.length,
        data: page.map((p) => ({ id: `e${p}`, type: 'payout.paid', data: { object: {} } })),
        next_after: page[page.length - 1] ?? after,
      },
    };
  };
}

/** Follows from `from` until a checkpoint satisfies `stopAt`: the ids handed over, the checkpoints. */
async function followUntil(
  transport: ReturnType<typeof testTransport>['transport'],
  opts: {
    stopAt: (c: FollowCheckpoint) => boolean;
    from?: FollowCheckpoint;
    limit?: number;
    intervalMs?: number;
  },
): Promise<{ seen: string[]; checkpoints: FollowCheckpoint[] }> {
  const seen: string[] = [];
  const checkpoints: FollowCheckpoint[] = [];
  const stop = new AbortController();
  await new EventsResource(transport).follow({
    from: opts.from ?? FROM_OLDEST,
    ...(opts.limit === undefined ? {} : { limit: opts.limit }),
    onEvent: (e) => {
      seen.push(e.id);
    },
    onCheckpoint: (c) => {
      checkpoints.push(c);
      if (opts.stopAt(c)) stop.abort();
    },
    intervalMs: opts.intervalMs ?? 100,
    signal: stop.signal,
  });
  return { seen, checkpoints };
}

describe('EventsResource.follow', () => {
  it('hands every event once in order, stores a checkpoint after each, and polls with the ETag', async () => {
    let total = 5;
    const { transport, requests } = testTransport(feedApi(() => total));
    const seen: string[] = [];
    const checkpoints: FollowCheckpoint[] = [];
    const stop = new AbortController();
    let polls = 0;
    await new EventsResource(transport).follow({
      from: FROM_OLDEST,
      limit: 2,
      onEvent: (e) => {
        seen.push(e.id);
      },
      onCheckpoint: (c) => {
        checkpoints.push(c);
        if (c.after === 5 && c.handled.length === 0 && total === 5) total = 7;
        if (c.after === 7 && c.handled.length === 0) stop.abort();
      },
      intervalMs: 100,
      signal: stop.signal,
    });
    polls = requests.length;
    expect(seen).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(checkpoints.slice(0, 3)).toEqual([
      { after: 0, handled: ['e1'] },
      { after: 0, handled: ['e1', 'e2'] },
      { after: 2, handled: [] },
    ]);
    expect(polls).toBeGreaterThan(3);
  });

  it('resumes from a checkpoint taken mid-page without handing an event twice', async () => {
    const { transport } = testTransport(feedApi(() => 4));
    const { seen } = await followUntil(transport, {
      from: { after: 0, handled: ['e1', 'e2'] },
      limit: 3,
      stopAt: (c) => c.after === 4,
    });
    expect(seen).toEqual(['e3', 'e4']);
  });

  it('resumed with a smaller page than the checkpoint was taken with, hands no event twice', async () => {
    // run 1 (limit 4) stopped at e4 having handled e1..e3; run 2 reads pages of 2
    const { transport } = testTransport(feedApi(() => 6));
    const { seen, checkpoints } = await followUntil(transport, {
      from: { after: 0, handled: ['e1', 'e2', 'e3'] },
      limit: 2,
      stopAt: (c) => c.after === 6,
    });
    expect(seen).toEqual(['e4', 'e5', 'e6']);
    // past the first page, e3 is still handled: a restart from here skips it too
    expect(checkpoints[0]).toEqual({ after: 2, handled: ['e3'] });
    expect(checkpoints[checkpoints.length - 1]).toEqual({ after: 6, handled: [] });
  });

  it('forgets a handled id that a page not full did not hold (another filter, a stale store)', async () => {
    const { transport } = testTransport(feedApi(() => 2));
    const { checkpoints } = await followUntil(transport, {
      from: { after: 0, handled: ['e1', 'other'] },
      limit: 5,
      stopAt: (c) => c.after === 2,
    });
    expect(checkpoints[checkpoints.length - 1]).toEqual({ after: 2, handled: [] });
  });

  it('sends If-None-Match at the head and waits on 304', async () => {
    // the test transport's sleep is instant: stop after a few polls
    const stop = new AbortController();
    const api = feedApi(() => 1);
    let calls = 0;
    const { transport, requests } = testTransport((req) => {
      if (++calls >= 3) stop.abort();
      return api(req);
    });
    await new EventsResource(transport).follow({
      from: { after: 1, handled: [] },
      onEvent: () => undefined,
      onCheckpoint: () => undefined,
      intervalMs: 100,
      signal: stop.signal,
    });
    const n = requests.length;
    expect(n).toBeGreaterThanOrEqual(2);
    expect(requests[0]!.headers.get('if-none-match')).toBeNull();
    expect(requests[1]!.headers.get('if-none-match')).toBe('"v1a1"');
  });

  it('waits out a 503 and goes on; a 410 ends the follow with CursorExpiredError', async () => {
    const { transport } = testTransport(
      feedApi(() => 2, {
        refuse: (n) =>
          n <= 4
            ? {
                status: 503,
                body: errorBody('service_unavailable'),
                headers: { 'retry-after': '1' },
              }
            : undefined,
      }),
    );
    const { seen } = await followUntil(transport, { stopAt: (c) => c.after === 2 });
    expect(seen).toEqual(['e1', 'e2']);

    const expired = testTransport([{ status: 410, body: errorBody('cursor_expired') }]);
    await expect(
      new EventsResource(expired.transport).follow({
        from: { after: 3, handled: [] },
        onEvent: () => undefined,
        onCheckpoint: () => undefined,
      }),
    ).rejects.toBeInstanceOf(CursorExpiredError);
  });

  it('tells onWait each wait before it is waited; onWait throwing ends the follow with its error', async () => {
    const unavailable: StubAnswer = {
      status: 503,
      body: errorBody('service_unavailable'),
      headers: { 'retry-after': '1' },
    };
    const told = testTransport(
      feedApi(() => 1, { refuse: (n) => (n <= 6 ? unavailable : undefined) }),
    );
    const waits: Array<{ failures: number; waitMs: number; after: number; error: unknown }> = [];
    const stop = new AbortController();
    await new EventsResource(told.transport).follow({
      from: FROM_OLDEST,
      onEvent: () => stop.abort(),
      onCheckpoint: () => undefined,
      onWait: (wait) => void waits.push(wait),
      signal: stop.signal,
    });
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.map((w) => w.failures)).toEqual(waits.map((_, i) => i + 1));
    expect(waits[0]).toMatchObject({ waitMs: 1000, after: 0 });
    expect((waits[0]!.error as { code?: string }).code).toBe('service_unavailable');

    const stopped = new Error('down too long');
    const refused = testTransport(feedApi(() => 1, { refuse: () => unavailable }));
    await expect(
      new EventsResource(refused.transport).follow({
        from: FROM_OLDEST,
        onEvent: () => undefined,
        onCheckpoint: () => undefined,
        onWait: () => {
          throw stopped;
        },
      }),
    ).rejects.toBe(stopped);
  });

  it('throws a Retry-After beyond maxRetryAfterSeconds at once, in follow and all (README retries)', async () => {
    const tooLong: StubAnswer = {
      status: 429,
      body: errorBody('rate_limited'),
      headers: { 'retry-after': '86400' },
    };
    const follower = testTransport([tooLong]);
    await expect(
      new EventsResource(follower.transport).follow({
        from: FROM_OLDEST,
        onEvent: () => undefined,
        onCheckpoint: () => undefined,
      }),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(follower.requests).toHaveLength(1);
    expect(follower.sleeps).toEqual([]);

    const walk = testTransport([{ ...tooLong, headers: { 'retry-after': '3600' } }]);
    const walking = (async () => {
      for await (const e of new EventsResource(walk.transport).all()) void e;
    })();
    await expect(walking).rejects.toBeInstanceOf(RateLimitedError);
    expect(walk.requests).toHaveLength(1);
    expect(walk.sleeps).toEqual([]);
  });

  it("waits out a proxy's 502 and 504 with a bounded back-off and goes on", async () => {
    const proxy = (status: number): StubAnswer => ({
      status,
      body: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    });
    // the client's two retries answer 502s too: the follower itself sees three failures
    const { transport, sleeps } = testTransport(
      feedApi(() => 2, {
        refuse: (n) => (n <= 6 ? proxy(502) : n <= 9 ? proxy(504) : undefined),
      }),
    );
    const { seen } = await followUntil(transport, {
      stopAt: (c) => c.after === 2,
      intervalMs: 1_000,
    });
    expect(seen).toEqual(['e1', 'e2']);
    // the follower's own waits (not the client's retries, each below 8 s): 1, 2, 4 s
    expect(sleeps.filter((ms) => ms >= 1_000).slice(0, 3)).toEqual([1_000, 2_000, 4_000]);
  });

  it('refuses a stored checkpoint that is not one', async () => {
    const { transport } = testTransport([]);
    await expect(
      new EventsResource(transport).follow({
        from: { after: -1, handled: [] },
        onEvent: () => undefined,
        onCheckpoint: () => undefined,
      }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});

describe('EventsResource.list and all', () => {
  it('sends the filters as the API names them, and walks newest first by next_cursor', async () => {
    const { transport, requests } = testTransport([
      {
        status: 200,
        body: { resource: 'events', count: 2, data: [{ id: 'a' }, { id: 'b' }], next_cursor: 'c1' },
      },
      { status: 200, body: { resource: 'events', count: 1, data: [{ id: 'c' }] } },
    ]);
    const ids: string[] = [];
    for await (const e of new EventsResource(transport).all({
      limit: 2,
      types: ['payout.paid', 'campaign.settled'],
      recordId: 'po_1',
      since: new Date('2026-11-01T00:00:00Z'),
    }))
      ids.push(e.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(Object.fromEntries(requests[0]!.url.searchParams)).toEqual({
      limit: '2',
      type: 'payout.paid,campaign.settled',
      record_id: 'po_1',
      since: '2026-11-01T00:00:00.000Z',
    });
    expect(requests[1]!.url.searchParams.get('cursor')).toBe('c1');
  });
});
