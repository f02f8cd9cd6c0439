import { CursorExpiredError } from '../errors/codeErrors';
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
      intervalMs: 10,
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
    const seen: string[] = [];
    const stop = new AbortController();
    await new EventsResource(transport).follow({
      from: { after: 0, handled: ['e1', 'e2'] },
      limit: 3,
      onEvent: (e) => {
        seen.push(e.id);
      },
      onCheckpoint: (c) => {
        if (c.after === 4) stop.abort();
      },
      intervalMs: 10,
      signal: stop.signal,
    });
    expect(seen).toEqual(['e3', 'e4']);
  });

  it('resumed with a smaller page than the checkpoint was taken with, hands no event twice', async () => {
    // run 1 (limit 4) stopped at e4 having handled e1..e3; run 2 reads pages of 2
    const { transport } = testTransport(feedApi(() => 6));
    const seen: string[] = [];
    const checkpoints: FollowCheckpoint[] = [];
    const stop = new AbortController();
    await new EventsResource(transport).follow({
      from: { after: 0, handled: ['e1', 'e2', 'e3'] },
      limit: 2,
      onEvent: (e) => {
        seen.push(e.id);
      },
      onCheckpoint: (c) => {
        checkpoints.push(c);
        if (c.after === 6) stop.abort();
      },
      intervalMs: 10,
      signal: stop.signal,
    });
    expect(seen).toEqual(['e4', 'e5', 'e6']);
    // past the first page, e3 is still handled: a restart from here skips it too
    expect(checkpoints[0]).toEqual({ after: 2, handled: ['e3'] });
    expect(checkpoints[checkpoints.length - 1]).toEqual({ after: 6, handled: [] });
  });

  it('forgets a handled id that a page not full did not hold (another filter, a stale store)', async () => {
    const { transport } = testTransport(feedApi(() => 2));
    const checkpoints: FollowCheckpoint[] = [];
    const stop = new AbortController();
    await new EventsResource(transport).follow({
      from: { after: 0, handled: ['e1', 'other'] },
      limit: 5,
      onEvent: () => undefined,
      onCheckpoint: (c) => {
        checkpoints.push(c);
        if (c.after === 2) stop.abort();
      },
      intervalMs: 10,
      signal: stop.signal,
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
      intervalMs: 10,
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
    const seen: string[] = [];
    const stop = new AbortController();
    await new EventsResource(transport).follow({
      from: FROM_OLDEST,
      onEvent: (e) => {
        seen.push(e.id);
      },
      onCheckpoint: (c) => {
        if (c.after === 2) stop.abort();
      },
      intervalMs: 10,
      signal: stop.signal,
    });
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
