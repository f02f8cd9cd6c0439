import { newId } from '@brand/shared/ids';
import {
  createEventProducer,
  createTopic,
  deleteTopic,
  makeBrandWithKey,
  makeBusinessEvent,
  scrapeMetric,
  startStack,
  uniqueConsumerGroup,
  uniqueTopic,
  waitFor,
  type BrandWithKey,
  type EventProducer,
  type Stack,
} from '@brand/testkit';
import type { BusinessEvent } from '@brand/proto/events/v1';
import { Redis } from 'ioredis';
import { ApiClient, type ApiResponse } from '../support/apiClient';

// GET /api/v1/events, the brand's business events as a feed: newest first
// with a cursor, oldest first after a stored position (the follow mode), filters by type,
// record and time, 304 for an unchanged poll without a call to webhooks, 410 for a position
// older than the kept history, no event of another brand, and bad input always a 4xx.
// Real processes: records, webhooks (consuming its own topic on the shared broker), gateway.

interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
  test: boolean;
  brand_id: string;
  data: { object: { resource: string; id: string; status?: string } };
}
interface FeedPage {
  resource: string;
  count: number;
  data: FeedEvent[];
  next_cursor?: string;
  next_after?: number;
  head: number;
}

let stack: Stack;
let api: ApiClient;
let producer: EventProducer;
let topic: string;
let brand: BrandWithKey;
let other: BrandWithKey;
/** What was published for `brand`, in publish order. */
const published: BusinessEvent[] = [];
const payoutId = newId('payout');
/**
 * Yesterday 00:00 UTC: the events' times are relative to today because the webhooks
 * service's sweeper (every 10 s) drops events older than the 30-day history retention; a
 * fixed date aged out of it and the late event vanished mid-file (a CI run's 410 on a walk).
 */
const DAY_MS = 86_400_000;
const base = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
/** The time `minutes` after base, with microseconds as records stamps them. */
const at = (minutes: number): string =>
  new Date(base + minutes * 60_000).toISOString().replace('Z', '123Z');

function get(path: string, key = brand.secret, headers: Record<string, string> = {}) {
  return api.get<FeedPage>(path, { key, headers });
}

/**
 * Publishes and waits until the feed holds `total` events of the brand: events with a feed
 * position in webhooks' table, the rows the feed reads. Asked of the database, not the API,
 * so that waiting on a slow machine does not spend the brand's rate limit (the brand's 240 a
 * minute went in 12 s of polling once, and every later request of the file was a 429).
 */
async function publish(events: BusinessEvent[], total: number): Promise<void> {
  await producer.publish(events);
  await waitFor(
    async () => {
      const { rows } = await stack.db.pool.query<{ n: number }>(
        'select count(*)::int as n from webhooks.events where brand_id = $1 and feed_seq is not null',
        [brand.brand.id],
      );
      return rows[0]!.n >= total;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: `${total} events in the feed` },
  );
}

/** The brand's newest feed position, as webhooks stores it. */
async function headInDatabase(): Promise<number> {
  const { rows } = await stack.db.pool.query<{ head: number }>(
    'select coalesce(max(feed_seq), 0)::int as head from webhooks.events where brand_id = $1',
    [brand.brand.id],
  );
  return rows[0]!.head;
}

/** Pages webhooks answered: on the gateway's page streams (StreamFeedPages), or unary. */
const feedCalls = (): Promise<number> =>
  scrapeMetric(
    stack.webhooks!.opsUrl,
    /^grpc_server_handled_total\{method="(StreamFeedPages|ListFeedEvents)",/,
  );

/** Every event of a newest-first walk, and the page sizes. */
async function walk(query: string, limit: number, key = brand.secret) {
  const seen: FeedEvent[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await get(
      `/api/v1/events?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`,
      key,
    );
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    if (res.body.count === limit) expect(res.body.next_cursor).toBeDefined();
    else expect(res.body.next_cursor).toBeUndefined();
    cursor = res.body.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error('the walk never ended');
}

beforeAll(async () => {
  topic = uniqueTopic('feed');
  await createTopic(topic);
  stack = await startStack({ webhooks: { topic, groupId: uniqueConsumerGroup('feed') } });
  api = new ApiClient(stack.gateway.url);
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  other = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  producer = await createEventProducer(topic);
  for (let i = 0; i < 12; i++) {
    const type = i % 3 === 0 ? 'payout.paid' : 'submission.approved';
    published.push(
      makeBusinessEvent({
        brandId: brand.brand.id,
        type,
        createdAt: at(i),
        object:
          type === 'payout.paid'
            ? { resource: 'payouts', id: i === 0 ? payoutId : newId('payout'), status: 'paid' }
            : { resource: 'submissions', id: newId('submission'), status: 'approved' },
      }),
    );
  }
  // another brand's events, on the same topic
  await producer.publish([
    makeBusinessEvent({ brandId: other.brand.id, type: 'campaign.settled' }),
    makeBusinessEvent({ brandId: other.brand.id, type: 'payout.paid' }),
  ]);
  await publish(published, published.length);
}, 120_000);

afterAll(async () => {
  await producer?.close();
  await stack?.close();
  await deleteTopic(topic);
});

describe('GET /api/v1/events, newest first', () => {
  it('answers every event once in the list envelope, each exactly as a receiver gets it', async () => {
    const first = await get('/api/v1/events');
    expect(first.status).toBe(200);
    expect(first.body.resource).toBe('events');
    expect(first.body.count).toBe(published.length);
    expect(first.body.next_cursor).toBeUndefined();
    const newest = published[published.length - 1]!;
    expect(first.body.data[0]).toEqual({
      id: newest.id,
      type: 'submission.approved',
      created_at: newest.created_at,
      test: false,
      brand_id: brand.brand.id,
      data: { object: JSON.parse(newest.object_json) as unknown },
    });
    // newest first: the reverse of the order the events were committed in
    expect(first.body.data.map((e) => e.id)).toEqual(published.map((e) => e.id).reverse());
    expect(Object.keys(first.body)).toEqual(['resource', 'count', 'data', 'head']);
    expect(first.body.head).toBe(await headInDatabase());
  });

  it('pages with next_cursor on a full page only, each event once', async () => {
    const seen = await walk('', 5);
    expect(seen.map((e) => e.id)).toEqual(published.map((e) => e.id).reverse());
    const exact = await walk('', 4);
    expect(exact).toHaveLength(published.length);
  });

  it('filters by type, by record id and by time (since exclusive, until exclusive)', async () => {
    const paid = await walk('&type=payout.paid', 2);
    expect(paid.map((e) => e.type)).toEqual([
      'payout.paid',
      'payout.paid',
      'payout.paid',
      'payout.paid',
    ]);
    const both = await get('/api/v1/events?type=payout.paid,submission.approved&limit=200');
    expect(both.body.count).toBe(published.length);
    const repeated = await get('/api/v1/events?type=payout.paid&type=campaign.settled');
    expect(repeated.body.count).toBe(4);
    const none = await get('/api/v1/events?type=campaign.settled');
    // the head is the feed's, whatever the filters
    expect(none.body).toEqual({ resource: 'events', count: 0, data: [], head: both.body.head });

    const one = await get(`/api/v1/events?record_id=${payoutId}`);
    expect(one.body.data.map((e) => e.data.object.id)).toEqual([payoutId]);

    // the events are a minute apart from 00:00:00.000123Z: since/until are exclusive
    const window = await get(`/api/v1/events?since=${at(2)}&until=${at(5)}`);
    expect(window.body.data.map((e) => e.id)).toEqual(
      [published[3]!, published[4]!].map((e) => e.id).reverse(),
    );
  });

  it('shows no event of another brand, and refuses its cursor', async () => {
    const theirs = await get('/api/v1/events?limit=200', other.secret);
    expect(theirs.body.count).toBe(2);
    expect(theirs.body.data.every((e) => e.brand_id === other.brand.id)).toBe(true);
    const mine = await get('/api/v1/events?limit=2');
    const stolen = await get(`/api/v1/events?cursor=${mine.body.next_cursor}`, other.secret);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ error: { code: 'invalid_cursor' } });
    const byRecord = await get(`/api/v1/events?record_id=${payoutId}`, other.secret);
    expect(byRecord.body.count).toBe(0);
  });

  it('travels as messages on long-lived page streams to webhooks, not as calls', async () => {
    const streamed = () =>
      scrapeMetric(
        stack.webhooks!.opsUrl,
        /^grpc_server_handled_total\{method="StreamFeedPages",code="ok"\}/,
      );
    const unary = () =>
      scrapeMetric(stack.webhooks!.opsUrl, /^grpc_server_handled_total\{method="ListFeedEvents",/);
    const before = await streamed();
    for (let i = 0; i < 3; i++) expect((await get('/api/v1/events?limit=1')).status).toBe(200);
    await waitFor(async () => (await streamed()) >= before + 3, { what: '3 pages on the streams' });
    expect(await unary()).toBe(0);
    expect(await scrapeMetric(stack.gateway.opsUrl, /^feed_page_streams_open /)).toBeGreaterThan(0);
  });
});

describe('GET /api/v1/events?after=, the follow mode', () => {
  it('reads on oldest first from a stored position, with next_after', async () => {
    const seen: string[] = [];
    let after = 0;
    for (let i = 0; i < 20; i++) {
      const res = await get(`/api/v1/events?after=${after}&limit=5`);
      expect(res.status).toBe(200);
      expect(res.body.next_cursor).toBeUndefined();
      seen.push(...res.body.data.map((e) => e.id));
      expect(res.body.next_after).toBeGreaterThanOrEqual(after);
      after = res.body.next_after!;
      if (res.body.count < 5) break;
    }
    expect(seen).toEqual(published.map((e) => e.id));
    const empty = await get(`/api/v1/events?after=${after}`);
    // read to the end: next_after is the head
    expect(empty.body).toEqual({
      resource: 'events',
      count: 0,
      data: [],
      next_after: after,
      head: after,
    });
  });

  it('refuses an after beyond the head with 400 position_beyond_head naming it, also for a tagged poll', async () => {
    const head = await headInDatabase();
    const atHead = await get(`/api/v1/events?after=${head}`);
    expect(atHead.status).toBe(200);
    for (const after of [head + 1, 9999]) {
      const res = await get(`/api/v1/events?after=${after}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: {
          code: 'position_beyond_head',
          details: [{ field: 'after' }],
          message: expect.stringContaining(
            `beyond the head of this brand's feed (${head})`,
          ) as string,
        },
      });
    }
    // another brand's head is its own: this brand's head is beyond it
    const theirs = await get(`/api/v1/events?after=${head}`, other.secret);
    expect(theirs.body).toMatchObject({ error: { code: 'position_beyond_head' } });
    // a tag cannot make it a 304: the version in Redis may lag the head, webhooks decides
    const tagged = await get(`/api/v1/events?after=${head + 1}`, brand.secret, {
      'If-None-Match': atHead.headers.get('etag')!,
    });
    expect(tagged.status).toBe(400);
    // a brand with no events yet is told so, not "after=0 for new events only, or after=0"
    const none = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const empty = await get('/api/v1/events?after=3', none.secret);
    expect(empty.status).toBe(400);
    expect((empty.body as unknown as { error: { message: string } }).error.message).toMatch(
      /\(0\)[^]*The feed has no events yet: follow from after=0\.$/,
    );
  });

  it('hands a follower an event committed late (an older created_at) after what it saw', async () => {
    const tail = await get('/api/v1/events?after=0&limit=200');
    const position = tail.body.next_after!;
    const lateAt = new Date(base - 5 * DAY_MS).toISOString().replace('Z', '001Z');
    const late = makeBusinessEvent({
      brandId: brand.brand.id,
      type: 'payout.paid',
      // days older than every other event, still inside the retention
      createdAt: lateAt,
    });
    published.push(late);
    await publish([late], published.length);
    const next = await get(`/api/v1/events?after=${position}`);
    expect(next.body.data.map((e) => e.id)).toEqual([late.id]);
    expect(next.body.data[0]!.created_at).toBe(lateAt);
    // newest first is by position too: the late event leads the first page
    const first = await get('/api/v1/events?limit=1');
    expect(first.body.data[0]!.id).toBe(late.id);
  });
});

describe('polling with If-None-Match', () => {
  it('is 304 without a call to webhooks while nothing happened, 200 once an event arrives', async () => {
    const first = await get('/api/v1/events');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // the consumer published the version: the next poll is decided at the gateway
    await waitFor(
      async () =>
        (await get('/api/v1/events', brand.secret, { 'If-None-Match': etag })).status === 304,
      { timeoutMs: 10_000, what: 'a 304' },
    );
    const calls = await feedCalls();
    for (let i = 0; i < 5; i++) {
      const res = await get('/api/v1/events', brand.secret, { 'If-None-Match': etag });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
    }
    expect(await feedCalls()).toBe(calls);
    // ...while a page without the tag is one more call (the metric counts what it should)
    expect((await get('/api/v1/events')).status).toBe(200);
    await waitFor(async () => (await feedCalls()) === calls + 1, { what: 'the page counted' });
    // another brand's event does not change this brand's tag
    await producer.publish([makeBusinessEvent({ brandId: other.brand.id })]);
    const event = makeBusinessEvent({ brandId: brand.brand.id, type: 'campaign.settled' });
    published.push(event);
    await publish([event], published.length);
    const changed = await get('/api/v1/events', brand.secret, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.data[0]!.id).toBe(event.id);
  });

  it('tags each query apart: a follow poll at the head is 304 too', async () => {
    const head = (await get('/api/v1/events?after=0&limit=200')).body.next_after!;
    const res = await get(`/api/v1/events?after=${head}`);
    const etag = res.headers.get('etag')!;
    expect(etag).not.toBe((await get('/api/v1/events')).headers.get('etag'));
    const again = await get(`/api/v1/events?after=${head}`, brand.secret, {
      'If-None-Match': etag,
    });
    expect(again.status).toBe(304);
  });
});

describe('a feed version lost on its way to Redis', () => {
  // A review (2026-11-29): the consumer publishes a brand's new feed version to Redis after its
  // commit and only logged a failure (a Redis timeout or failover, a crash before the SET), so
  // Redis kept the older version and a follower at the old head was answered 304 until the
  // brand's next event, for a quiet brand days. The state is made here as such a loss leaves it:
  // the event stored, Redis holding the version before it.
  it('is published again within a sweep: the follower at the old head gets the event', async () => {
    const redis = new Redis(stack.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      const key = `${stack.redisKeyPrefix}rv:${brand.brand.id}:events`;
      const head = (await get('/api/v1/events?after=0&limit=200')).body.next_after!;
      const atHead = await get(`/api/v1/events?after=${head}`);
      const etag = atHead.headers.get('etag')!;
      await waitFor(
        async () =>
          (await get(`/api/v1/events?after=${head}`, brand.secret, { 'If-None-Match': etag }))
            .status === 304,
        { timeoutMs: 10_000, what: 'a 304 at the head' },
      );
      const before = await redis.get(key);
      expect(before).not.toBeNull();
      const event = makeBusinessEvent({ brandId: brand.brand.id, type: 'payout.paid' });
      published.push(event);
      await publish([event], published.length);
      await waitFor(async () => (await redis.get(key)) !== before, { what: 'the publish' });
      await redis.set(key, before!, 'EX', 3600); // the publish lost
      // the sweep runs every second: well within 10 s (before: 304 until the brand's next event)
      await waitFor(
        async () => {
          const res = await get(`/api/v1/events?after=${head}`, brand.secret, {
            'If-None-Match': etag,
          });
          return res.status === 200 && res.body.data[0]?.id === event.id;
        },
        { timeoutMs: 10_000, intervalMs: 500, what: 'the event instead of a 304' },
      );
    } finally {
      redis.disconnect();
    }
  });
});

describe('expiry', () => {
  it('answers 410 cursor_expired for a cursor at or below what retention dropped, a position below it', async () => {
    const page = await get('/api/v1/events?limit=3');
    const cursor = page.body.next_cursor!;
    // as the partition keeper records it before it drops a week (feedRepo.ts expireFeedThrough)
    await stack.db.pool.query(
      `update webhooks.event_feed_heads set expired_through = 5 where brand_id = $1`,
      [brand.brand.id],
    );
    try {
      for (const path of ['/api/v1/events?after=3', '/api/v1/events?after=4']) {
        const res = await get(path);
        expect(res.status).toBe(410);
        expect(res.body).toMatchObject({ error: { code: 'cursor_expired' } });
      }
      // the position itself (nothing after it is gone), one past it, and 0 (the oldest kept)
      expect((await get('/api/v1/events?after=5')).status).toBe(200);
      expect((await get('/api/v1/events?after=6')).status).toBe(200);
      expect((await get('/api/v1/events?after=0')).status).toBe(200);
      expect((await get(`/api/v1/events?cursor=${cursor}`)).status).toBe(200);
      const deep = await walk('', 9);
      expect(deep.length).toBeGreaterThan(0);
      await stack.db.pool.query(
        `update webhooks.event_feed_heads set expired_through = 1000 where brand_id = $1`,
        [brand.brand.id],
      );
      const expired = await get(`/api/v1/events?cursor=${cursor}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ error: { code: 'cursor_expired' } });
    } finally {
      await stack.db.pool.query(
        `update webhooks.event_feed_heads set expired_through = 0 where brand_id = $1`,
        [brand.brand.id],
      );
    }
  });
});

describe('expiry by the real retention sweep', () => {
  // A review (2026-11-30): a follower that had read everything was answered 410 once retention
  // dropped the event at its position, and the advised recovery (after=0) handed it events a
  // second time. Events here are published a moment inside the 30-day history retention, so the
  // webhooks service's own sweep (every 10 s) drops them while the test waits, as it drops an
  // event committed 40 days late or a brand's events after it was idle a month.
  const RETENTION_MS = 30 * DAY_MS;
  /** created_at that leaves the retention `seconds` from now. */
  const leavingIn = (seconds: number): string =>
    new Date(Date.now() - RETENTION_MS + seconds * 1000).toISOString();

  async function storedFor(owner: BrandWithKey, total: number): Promise<void> {
    await waitFor(
      async () => {
        const { rows } = await stack.db.pool.query<{ n: number }>(
          'select count(*)::int as n from webhooks.events where brand_id = $1 and feed_seq is not null',
          [owner.brand.id],
        );
        return rows[0]!.n >= total;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `${total} events of ${owner.brand.id}` },
    );
  }

  async function expiredThrough(owner: BrandWithKey): Promise<number> {
    const { rows } = await stack.db.pool.query<{ n: number }>(
      'select expired_through::int as n from webhooks.event_feed_heads where brand_id = $1',
      [owner.brand.id],
    );
    return rows[0]?.n ?? 0;
  }

  it('lets a follower at what was dropped read on, refuses one below it, and a cursor at it', async () => {
    // late: event 1 recent, event 2 committed late with an old created_at (the reviewer's case)
    const late = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    // idle: every event of the brand leaves the retention, its follower at the head
    const idle = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    // walked: the two oldest leave, two recent ones stay (what retention drops every week)
    const walked = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const event = (owner: BrandWithKey, createdAt: string) =>
      makeBusinessEvent({ brandId: owner.brand.id, type: 'payout.paid', createdAt });
    const recent = at(30);
    await producer.publish([event(late, recent)]);
    await storedFor(late, 1);
    const lateOld = event(late, leavingIn(20));
    const idleEvents = [event(idle, leavingIn(20)), event(idle, leavingIn(20))];
    const walkedEvents = [
      event(walked, leavingIn(20)),
      event(walked, leavingIn(20)),
      event(walked, recent),
      event(walked, recent),
    ];
    await producer.publish([lateOld, ...idleEvents, ...walkedEvents]);
    await storedFor(late, 2);
    await storedFor(idle, 2);
    await storedFor(walked, 4);

    // read before the sweep: each follower at its brand's head, 2
    const lateRead = await get('/api/v1/events?after=1', late.secret);
    expect(lateRead.body).toMatchObject({ count: 1, next_after: 2, head: 2 });
    expect(lateRead.body.data[0]!.id).toBe(lateOld.id);
    const idleRead = await get('/api/v1/events?after=0', idle.secret);
    expect(idleRead.body).toMatchObject({ count: 2, next_after: 2, head: 2 });
    // newest-first cursors handed out before the sweep: at position 2 (late), 2 (walked)
    const lateCursor = (await get('/api/v1/events?limit=1', late.secret)).body.next_cursor!;
    const walkedPage = await get('/api/v1/events?limit=3', walked.secret);
    expect(walkedPage.body.count).toBe(3);
    const walkedCursor = walkedPage.body.next_cursor!;

    await waitFor(
      async () =>
        (await expiredThrough(late)) === 2 &&
        (await expiredThrough(idle)) === 2 &&
        (await expiredThrough(walked)) === 2,
      { timeoutMs: 60_000, intervalMs: 500, what: 'the sweep to drop the old events' },
    );

    // the follower at 2 lost nothing after it (before the fix: 410 cursor_expired)
    const atDropped = await get('/api/v1/events?after=2', late.secret);
    expect(atDropped.status).toBe(200);
    expect(atDropped.body).toEqual({
      resource: 'events',
      count: 0,
      data: [],
      next_after: 2,
      head: 2,
    });
    const idleAtHead = await get('/api/v1/events?after=2', idle.secret);
    expect(idleAtHead.status).toBe(200);
    expect(idleAtHead.body).toMatchObject({ count: 0, next_after: 2, head: 2 });
    // a follower at 1 never got event 2: it is told so
    const behind = await get('/api/v1/events?after=1', late.secret);
    expect(behind.status).toBe(410);
    expect(behind.body).toMatchObject({ error: { code: 'cursor_expired' } });
    // a cursor at a dropped position: its walk straddles the drop
    for (const [owner, cursor] of [
      [late, lateCursor],
      [walked, walkedCursor],
    ] as const) {
      const res = await get(`/api/v1/events?cursor=${cursor}`, owner.secret);
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({ error: { code: 'cursor_expired' } });
    }
    // a walk started now ends at the oldest kept (3, one past what was dropped): its cursor
    // there reads on to an empty page, not a 410 a new walk would meet again
    const fresh = await get('/api/v1/events?limit=2', walked.secret);
    expect(fresh.body.data.map((e) => e.id)).toEqual([walkedEvents[3]!.id, walkedEvents[2]!.id]);
    const end = await get(
      `/api/v1/events?limit=2&cursor=${fresh.body.next_cursor!}`,
      walked.secret,
    );
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ count: 0, data: [] });

    // the follower at 2 gets the brand's next event, once
    const next = event(late, recent);
    await producer.publish([next]);
    await storedFor(late, 2); // event 2 was dropped: 1 and the new one
    const after = await get('/api/v1/events?after=2', late.secret);
    expect(after.status).toBe(200);
    expect(after.body.data.map((e) => e.id)).toEqual([next.id]);
    expect(after.body).toMatchObject({ next_after: 3, head: 3 });
    const again = await get('/api/v1/events?after=3', late.secret);
    expect(again.body).toMatchObject({ count: 0, next_after: 3, head: 3 });
  }, 120_000);

  it('walks a fresh newest-first walk through a kept position below what was dropped, refuses one that began before the drop', async () => {
    // Retention drops by created_at: the late event (position 4, an old created_at) goes while
    // 1 to 3, committed before it but created later, stay. The greatest dropped, 4, is then
    // above kept positions. A walk started after the drop whose page ends on 3 was refused 410
    // (its cursor at or below 4), and so was every fresh walk the 410 advised (2026-11-30).
    const mixed = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const event = (createdAt: string) =>
      makeBusinessEvent({ brandId: mixed.brand.id, type: 'payout.paid', createdAt });
    const kept = [event(at(40)), event(at(41)), event(at(42))];
    const lateOld = event(leavingIn(20));
    const newest = event(at(43));
    await producer.publish([...kept, lateOld, newest]);
    await storedFor(mixed, 5);
    const ids = async (): Promise<string[]> =>
      (await get('/api/v1/events?limit=10', mixed.secret)).body.data.map((e) => e.id);
    expect(await ids()).toEqual([newest.id, lateOld.id, kept[2]!.id, kept[1]!.id, kept[0]!.id]);

    // walks begun before the drop: one whose cursor is at the kept 3, one whose cursor (5) is
    // above what will be dropped, so its next page reads on and ends on 3
    const straddling = await get('/api/v1/events?limit=3', mixed.secret);
    expect(straddling.body.data.map((e) => e.id)).toEqual([newest.id, lateOld.id, kept[2]!.id]);
    const straddlingCursor = straddling.body.next_cursor!;
    const slow = (await get('/api/v1/events?limit=1', mixed.secret)).body.next_cursor!;

    await waitFor(async () => (await expiredThrough(mixed)) === 4, {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'the sweep to drop the late event',
    });
    expect(await ids()).toEqual([newest.id, kept[2]!.id, kept[1]!.id, kept[0]!.id]);

    // a fresh walk, two a page: its first page ends on 3, below 4; it reads on to the end,
    // every kept event once
    const fresh = await walk('', 2, mixed.secret);
    expect(fresh.map((e) => e.id)).toEqual([newest.id, kept[2]!.id, kept[1]!.id, kept[0]!.id]);
    // and one a page: cursors at 5, 3, 2, 1
    const single = await walk('', 1, mixed.secret);
    expect(single.map((e) => e.id)).toEqual([newest.id, kept[2]!.id, kept[1]!.id, kept[0]!.id]);

    // the protection stays: a walk begun before the drop is refused once its cursor is at or
    // below 4 (it may still have to read what was dropped after it began) ...
    const refused = await get(`/api/v1/events?limit=3&cursor=${straddlingCursor}`, mixed.secret);
    expect(refused.status).toBe(410);
    expect(refused.body).toMatchObject({ error: { code: 'cursor_expired' } });
    // ... also when its page after the drop began above 4: the value it carries is its first
    // page's, so where its pages end does not decide whether it is refused
    const onAbove = await get(`/api/v1/events?limit=1&cursor=${slow}`, mixed.secret);
    expect(onAbove.status).toBe(200);
    expect(onAbove.body.data.map((e) => e.id)).toEqual([kept[2]!.id]);
    const below = await get(
      `/api/v1/events?limit=1&cursor=${onAbove.body.next_cursor!}`,
      mixed.secret,
    );
    expect(below.status).toBe(410);
    expect(below.body).toMatchObject({ error: { code: 'cursor_expired' } });
  }, 120_000);
});

describe('a narrow filter over a long history', () => {
  // A review (2026-11-30): a follower of ?type=campaign.settled on a brand with a million
  // payout.paid events was answered next_after 0 on every empty page, so each poll rescanned
  // the brand's whole history (~270 ms) and it never moved. A page that is not full holds every
  // match up to the head it was read with, so the follower reads on from the head.
  it('moves a filtered follower to the head on a page that is not full, then hands it a later match once', async () => {
    const narrow = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    const COUNT = 3000;
    const paid = Array.from({ length: COUNT }, () =>
      makeBusinessEvent({ brandId: narrow.brand.id, type: 'payout.paid', createdAt: at(40) }),
    );
    await producer.publish(paid);
    await waitFor(
      async () => {
        const { rows } = await stack.db.pool.query<{ n: number }>(
          'select count(*)::int as n from webhooks.events where brand_id = $1 and feed_seq is not null',
          [narrow.brand.id],
        );
        return rows[0]!.n >= COUNT;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `${COUNT} events in the feed` },
    );
    const read = (query: string) => get(`/api/v1/events?${query}`, narrow.secret);

    // nothing matches: next_after is the head (before the fix: 0, forever)
    const none = await read('after=0&type=campaign.settled');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ count: 0, next_after: COUNT, head: COUNT });
    // so is one of record_id (one match, far behind the head)
    const record = JSON.parse(paid[9]!.object_json) as { id: string };
    const byRecord = await read(`after=0&record_id=${record.id}`);
    expect(byRecord.body.data.map((e) => e.id)).toEqual([paid[9]!.id]);
    expect(byRecord.body).toMatchObject({ next_after: COUNT, head: COUNT });
    // a full page still reads on from its last event
    const full = await read('after=0&type=payout.paid&limit=5');
    expect(full.body).toMatchObject({ count: 5, next_after: 5, head: COUNT });
    // with until it stays: a follower moving its until on must still get what lies between
    const until = new Date(Date.now() + DAY_MS).toISOString();
    const bounded = await read(`after=0&type=campaign.settled&until=${until}`);
    expect(bounded.body).toMatchObject({ count: 0, next_after: 0, head: COUNT });

    // the follower polls from the head: a later match comes once, then it stays at the head
    const settled = makeBusinessEvent({ brandId: narrow.brand.id, type: 'campaign.settled' });
    const later = makeBusinessEvent({ brandId: narrow.brand.id, type: 'payout.paid' });
    await producer.publish([settled, later]);
    await waitFor(
      async () => {
        const { rows } = await stack.db.pool.query<{ n: number }>(
          'select count(*)::int as n from webhooks.events where brand_id = $1 and feed_seq is not null',
          [narrow.brand.id],
        );
        return rows[0]!.n >= COUNT + 2;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the later events in the feed' },
    );
    const seen: string[] = [];
    let after = none.body.next_after!;
    for (let i = 0; i < 3; i++) {
      const res = await read(`after=${after}&type=campaign.settled`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e) => e.id));
      expect(res.body).toMatchObject({ next_after: COUNT + 2, head: COUNT + 2 });
      after = res.body.next_after!;
    }
    expect(seen).toEqual([settled.id]);
  }, 120_000);
});

describe('bad input', () => {
  it.each([
    ['limit=0', 'invalid_parameter'],
    ['limit=201', 'invalid_parameter'],
    ['limit=abc', 'invalid_parameter'],
    ['type=payout.refunded', 'invalid_parameter'],
    ['type=', 'invalid_parameter'],
    ['after=-1', 'invalid_parameter'],
    ['after=1.5', 'invalid_parameter'],
    ['after=99999999999999999999', 'invalid_parameter'],
    ['since=yesterday', 'invalid_parameter'],
    ['until=2026-13-01T00:00:00Z', 'invalid_parameter'],
    ['record_id=po_%27%3B--', 'invalid_parameter'],
    ['cursor=garbage', 'invalid_cursor'],
    ['cursor=1.AAAAAAAAAAAAAAAA', 'invalid_cursor'],
    ['cursor=1.2.AAAAAAAAAAAAAAAA', 'invalid_cursor'],
    ['cursor=1.2.3.AAAAAAAAAAAAAAAA', 'invalid_cursor'],
    ['cursor=1.A.AAAAAAAAAAAAAAAA', 'invalid_cursor'],
    ['cursor=1.AAAAAAAAAAAAAAAA&after=0', 'invalid_parameter'],
    ['updated_since=2026-01-01T00:00:00Z', 'invalid_parameter'],
    ['limit=1&limit=2', 'invalid_parameter'],
  ])('?%s is 400 %s', async (query, code) => {
    const res = await get(`/api/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code } });
  });

  it('needs a key, and takes GET and HEAD only', async () => {
    const anonymous = await api.get('/api/v1/events');
    expect(anonymous.status).toBe(401);
    const post = await api.post('/api/v1/events', { key: brand.secret, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${stack.gateway.url}/api/v1/events`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${brand.secret}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"/);
  });

  it('is not a record path: /api/v1/events/evt_x is not a resource', async () => {
    const res: ApiResponse = await api.get(`/api/v1/events/${published[0]!.id}`, {
      key: brand.secret,
    });
    expect(res.status).toBe(404);
  });
});
