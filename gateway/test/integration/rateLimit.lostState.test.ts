import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, type Redis } from '@brand/shared/redis';
import { freeRedisPrefixKeys, testRedisUrl, uniqueRedisPrefix, waitFor } from '@brand/testkit';
import { AdmissionLedger } from '../../src/ratelimit/admissionLedger';
import { MemorySlidingWindowLimiter } from '../../src/ratelimit/memoryLimiter';
import { RedisSlidingWindowLimiter } from '../../src/ratelimit/redisLimiter';

// Against the real Redis script: what a Redis that lost its state (a restart of a Redis that keeps
// nothing on disk) and an outage's fallback admissions do to a budget. Losing the state is
// simulated by deleting this file's keys (its own prefix), which is exactly what a restarted Redis
// looks like to the script: no epoch, no budgets. The whole-system version, with a real
// redis-server killed and restarted under a real gateway, is rateLimit.redisRestart.test.ts.

const log = createLogger({ service: 'test', level: 'silent' });
let redis: Redis;
let prefix: string;

interface Instance {
  ledger: AdmissionLedger;
  limiter: RedisSlidingWindowLimiter;
  fallback: MemorySlidingWindowLimiter;
  /** How many script calls this instance made, and how many arguments each carried. */
  calls: number[];
  lost: number;
}

/** One gateway instance's limiters: its own ledger, the shared Redis, calls counted. */
function instance(): Instance {
  const ledger = new AdmissionLedger({ maxKeys: 100 });
  const self: Instance = {
    ledger,
    limiter: undefined as unknown as RedisSlidingWindowLimiter,
    fallback: new MemorySlidingWindowLimiter({ ledger, instances: 1 }),
    calls: [],
    lost: 0,
  };
  self.limiter = new RedisSlidingWindowLimiter(redis, prefix, ledger, () => (self.lost += 1));
  return self;
}

/** Counts every script call and its arguments (keys included), whoever makes it. */
let spy: number[] | undefined;

async function admitted(
  limiter: RedisSlidingWindowLimiter | MemorySlidingWindowLimiter,
  n: number,
  limit = 60,
) {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await limiter.consume('brand:b1', limit, 1)).allowed) allowed++;
  return allowed;
}

/** What a Redis restart does to this file's keys: the epoch and every budget are gone. */
const loseState = (): Promise<number> => freeRedisPrefixKeys(prefix);

const budgetKey = (): string => `${prefix}rl:brand:b1`;

beforeAll(async () => {
  redis = createRedisClient({ url: testRedisUrl(), name: 'test', log, queueWhileOffline: false });
  await waitFor(() => redis.status === 'ready');
  // wrap the script command once, so tests can count round trips and their size
  const probe = new RedisSlidingWindowLimiter(redis, 'probe:', new AdmissionLedger({ maxKeys: 1 }));
  void probe;
  const target = redis as unknown as { slidingWindow: (...a: unknown[]) => Promise<unknown> };
  const original = target.slidingWindow.bind(redis);
  target.slidingWindow = (...a: unknown[]) => {
    spy?.push(a.length);
    return original(...a);
  };
});

beforeEach(() => {
  prefix = uniqueRedisPrefix();
  spy = [];
});

afterEach(async () => {
  await freeRedisPrefixKeys(prefix).catch(() => undefined);
});

afterAll(async () => {
  if (redis) await closeRedis(redis);
});

describe('a budget across a Redis that lost its state (issue 19)', () => {
  it('one instance: a Redis restarted empty gets the ledger back before admitting more', async () => {
    const g = instance();
    expect(await admitted(g.limiter, 50)).toBe(50);
    expect(await loseState()).toBeGreaterThanOrEqual(2);
    // the window still holds 50: 10 more, not a fresh 60
    expect(await admitted(g.limiter, 30)).toBe(10);
    expect(await redis.zcard(budgetKey())).toBe(60);
    // re-seeded under the same member names, so seeding again adds nothing
    const members = await redis.zrange(budgetKey(), 0, -1);
    expect(new Set(members)).toEqual(new Set(g.ledger.seeds('brand:b1').members));
    expect(g.lost).toBe(1);
  });

  // A review (2026-11-29): a Redis restarted from a snapshot keeps its epoch key but not the
  // units admitted after the snapshot; the epoch unchanged, no instance put its units back, and
  // the budget could be spent again (59 more of 60 here). Made as such a restart leaves it: the
  // budget set back to its snapshot, the epoch kept, the connection made anew.
  it('one instance: a Redis restored from a snapshot (its epoch kept) gets the ledger back too', async () => {
    const g = instance();
    expect(await admitted(g.limiter, 1)).toBe(1);
    const snapshot = await redis.zrange(budgetKey(), 0, -1, 'WITHSCORES');
    expect(await admitted(g.limiter, 59)).toBe(59);
    await redis.del(budgetKey());
    await redis.zadd(budgetKey(), snapshot[1]!, snapshot[0]!);
    const ready = new Promise((r) => redis.once('ready', r));
    redis.disconnect(true);
    await ready;
    expect(await admitted(g.limiter, 60)).toBe(0);
    expect(await redis.zcard(budgetKey())).toBe(60);
  });

  it('re-seeded units keep their age: each leaves Redis when it would have', async () => {
    const g = instance();
    expect(await admitted(g.limiter, 3, 3)).toBe(3);
    const [, before] = await redis.zrange(budgetKey(), 0, 0, 'WITHSCORES');
    await new Promise((r) => setTimeout(r, 1_000));
    await loseState();
    const refused = await g.limiter.consume('brand:b1', 3, 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    // 59 s left, give or take the round trip: never earlier than the original unit
    expect(refused.retryAfterSeconds).toBe(59);
    const [, after] = await redis.zrange(budgetKey(), 0, 0, 'WITHSCORES');
    const shiftMs = (Number(after) - Number(before)) / 1000;
    expect(shiftMs).toBeGreaterThanOrEqual(0);
    expect(shiftMs).toBeLessThan(250);
  });

  it('the normal path makes one script call with no units; only a changed epoch costs a second', async () => {
    const g = instance();
    await admitted(g.limiter, 5);
    // the first call seeds an empty ledger (the instance knows no epoch yet); then no units
    // (11 arguments: the two keys, the nine of the script's ARGV, the lease's three among them;
    // a budget of 5 a minute never leases, admissionLeases.ts)
    expect(spy).toEqual([11, 11, 11, 11, 11]);
    spy = [];
    await loseState();
    await admitted(g.limiter, 2);
    // first call: new epoch, no units sent, nothing decided; again with the 5 units; then normal
    expect(spy).toEqual([11, 11 + 5 * 2, 11]);
  });

  it('units the fallback admitted while Redis was away are sent with the next call', async () => {
    const g = instance();
    expect(await admitted(g.limiter, 20)).toBe(20);
    // Redis unreachable (its state kept): the fallback decides from the ledger, not from 0
    expect(await admitted(g.fallback, 50)).toBe(40);
    expect(await redis.zcard(budgetKey())).toBe(20);
    // Redis reachable again: the first call tells it of the 40 before deciding
    expect(await admitted(g.limiter, 5)).toBe(0);
    expect(await redis.zcard(budgetKey())).toBe(60);
    expect(spy![spy!.length - 5]).toBe(11 + 60 * 2);
    expect(g.lost).toBe(0);
  });

  it('two instances: after a restart, at most the limit plus what the other admitted unseen', async () => {
    const a = instance();
    const b = instance();
    expect(await admitted(a.limiter, 20)).toBe(20);
    expect(await admitted(b.limiter, 25)).toBe(25);
    await loseState();
    // A knows only its own 20: it admits up to 60 of them, 40, beside B's 25 it cannot see
    expect(await admitted(a.limiter, 50)).toBe(40);
    // the window holds 85 = 60 + 25, the stated bound; B's first call puts its 25 back
    expect(await admitted(b.limiter, 10)).toBe(0);
    expect(await redis.zcard(budgetKey())).toBe(85);
    expect(await admitted(a.limiter, 10)).toBe(0);
    expect([a.lost, b.lost]).toEqual([1, 1]);
  });
});
