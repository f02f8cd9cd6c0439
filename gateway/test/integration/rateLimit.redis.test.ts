import net from 'node:net';
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, type Redis } from '@brand/shared/redis';
import { freeRedisPrefixKeys, testRedisUrl, uniqueRedisPrefix, waitFor } from '@brand/testkit';
import { AdmissionLedger } from '../../src/ratelimit/admissionLedger';
import { LEASE_SPAN_MS } from '../../src/ratelimit/admissionLeases';
import { RedisSlidingWindowLimiter } from '../../src/ratelimit/redisLimiter';

// The Lua sliding-window limiter against the real Redis: two limiter instances with their
// own connections stand in for two gateway processes sharing one budget.

const log = createLogger({ service: 'test', level: 'silent' });
const prefix = uniqueRedisPrefix();
let redisA: Redis;
let redisB: Redis;
let limiterA: RedisSlidingWindowLimiter;
let limiterB: RedisSlidingWindowLimiter;
let keyCounter = 0;

/** A budget key of its own for each test, and the Redis key the script keeps it in. */
function freshKey(): { key: string; redisKey: string } {
  const key = `brand:b${++keyCounter}`;
  return { key, redisKey: `${prefix}rl:${key}` };
}

/** Redis's clock in microseconds, the clock the script times units by. */
async function redisNowUs(): Promise<number> {
  const [s, us] = await redisA.time();
  return Number(s) * 1_000_000 + Number(us);
}

/** Puts units into a budget directly, as if admitted `agoMs` milliseconds ago. */
async function seedUnits(redisKey: string, agoMs: number[]): Promise<void> {
  const now = await redisNowUs();
  for (const [i, ago] of agoMs.entries()) {
    await redisA.zadd(redisKey, now - ago * 1000, `seed:${i}`);
  }
  await redisA.pexpire(redisKey, 60_000);
}

beforeAll(async () => {
  const client = (name: string) =>
    createRedisClient({ url: testRedisUrl(), name, log, queueWhileOffline: false });
  redisA = client('test-a');
  redisB = client('test-b');
  await waitFor(() => redisA.status === 'ready' && redisB.status === 'ready');
  limiterA = new RedisSlidingWindowLimiter(redisA, prefix, new AdmissionLedger({ maxKeys: 100 }));
  limiterB = new RedisSlidingWindowLimiter(redisB, prefix, new AdmissionLedger({ maxKeys: 100 }));
});

afterAll(async () => {
  await freeRedisPrefixKeys(prefix).catch(() => undefined);
  await Promise.all([redisA, redisB].filter(Boolean).map(closeRedis));
});

describe('RedisSlidingWindowLimiter (Lua, real Redis)', () => {
  it('admits exactly the limit out of 500 concurrent calls from two instances', async () => {
    const { key, redisKey } = freshKey();
    const calls = Array.from({ length: 500 }, (_, i) =>
      (i % 2 === 0 ? limiterA : limiterB).consume(key, 60, 1),
    );
    const decisions = await Promise.all(calls);
    const allowed = decisions.filter((d) => d.allowed);
    const refused = decisions.filter((d) => !d.allowed);
    expect(allowed).toHaveLength(60);
    expect(refused).toHaveLength(440);
    // the script runs one call at a time: each remaining value 59..0 was handed out once
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const d of refused) {
      expect(d).toMatchObject({ remaining: 0, limit: 60, degraded: false });
      expect(Number.isInteger(d.retryAfterSeconds)).toBe(true);
      expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      expect(d.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    // one member per admitted unit: no two instances' members collided
    expect(await redisA.zcard(redisKey)).toBe(60);
  });

  it('takes a batch (cost > 1) whole or not at all, also under concurrency', async () => {
    const { key, redisKey } = freshKey();
    expect(await limiterA.consume(key, 10, 4)).toMatchObject({ allowed: true, remaining: 6 });
    expect(await limiterB.consume(key, 10, 4)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiterA.consume(key, 10, 3)).toMatchObject({ allowed: false, remaining: 2 });
    expect(await redisA.zcard(redisKey)).toBe(8);
    expect(await limiterA.consume(key, 10, 2)).toMatchObject({ allowed: true, remaining: 0 });

    const batches = freshKey();
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? limiterA : limiterB).consume(batches.key, 60, 7),
      ),
    );
    // 8 batches of 7 fit in 60; the 4 units left are never handed out piecemeal
    expect(decisions.filter((d) => d.allowed)).toHaveLength(8);
    expect(await redisA.zcard(batches.redisKey)).toBe(56);
  });

  it('cost 0 inspects without consuming, and creates nothing for an unused budget', async () => {
    const { key, redisKey } = freshKey();
    expect(await limiterA.consume(key, 5, 0)).toMatchObject({
      allowed: true,
      remaining: 5,
      resetSeconds: 0,
    });
    expect(await redisA.exists(redisKey)).toBe(0);
    for (let i = 0; i < 5; i++) await limiterA.consume(key, 5, 1);
    for (let i = 0; i < 3; i++) {
      expect(await limiterB.consume(key, 5, 0)).toMatchObject({ allowed: true, remaining: 0 });
    }
    expect(await redisA.zcard(redisKey)).toBe(5);
  });

  it('times units by Redis and reports reset and Retry-After in whole seconds, rounded up', async () => {
    const { key, redisKey } = freshKey();
    // three units, admitted 50 s, 40.2 s and 10 s ago: they leave in 10 s, 19.8 s and 50 s
    await seedUnits(redisKey, [50_000, 40_200, 10_000]);
    const one = await limiterA.consume(key, 3, 1);
    expect(one).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 10 });
    expect(one.resetSeconds).toBe(10);
    // two units must wait for the second-oldest to leave: 19.8 s rounds up to 20
    expect((await limiterA.consume(key, 3, 2)).retryAfterSeconds).toBe(20);
    expect((await limiterA.consume(key, 3, 3)).retryAfterSeconds).toBe(50);
    // more than the limit can never fit: the full window
    expect((await limiterA.consume(key, 3, 4)).retryAfterSeconds).toBe(60);
    expect(await redisA.zcard(redisKey)).toBe(3);

    // an admitted call's own unit is timed by Redis's clock
    const fresh = freshKey();
    const before = await redisNowUs();
    const admitted = await limiterB.consume(fresh.key, 3, 1);
    const after = await redisNowUs();
    expect(admitted).toMatchObject({ allowed: true, remaining: 2, retryAfterSeconds: 0 });
    expect(admitted.resetSeconds).toBe(60);
    const [, score] = await redisA.zrange(fresh.redisKey, 0, 0, 'WITHSCORES');
    expect(Number(score)).toBeGreaterThanOrEqual(before);
    expect(Number(score)).toBeLessThanOrEqual(after);
  });

  it('slides: a unit admitted 60 s ago no longer counts, one admitted 59 s ago still does', async () => {
    const { key, redisKey } = freshKey();
    await seedUnits(redisKey, [60_001, 59_000, 30_000]);
    // the first left the window already; the second has ~1 s to go
    expect(await limiterA.consume(key, 3, 0)).toMatchObject({ remaining: 1 });
    expect(await limiterA.consume(key, 3, 1)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await limiterA.consume(key, 3, 1);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await limiterA.consume(key, 3, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await redisA.zcard(redisKey)).toBe(3);
  });

  it('sets an expiry on every budget it writes, and an emptied budget disappears', async () => {
    const { key, redisKey } = freshKey();
    await limiterA.consume(key, 5, 1);
    const ttl = await redisA.pttl(redisKey);
    expect(ttl).toBeGreaterThan(55_000);
    // the window and a lease's span: a leased unit is counted from the span's end (issue 64)
    expect(ttl).toBeLessThanOrEqual(60_000 + LEASE_SPAN_MS);

    const stale = freshKey();
    const now = await redisNowUs();
    await redisA.zadd(stale.redisKey, now - 61_000_000, 'old:1', now - 70_000_000, 'old:2');
    expect(await redisA.pttl(stale.redisKey)).toBe(-1);
    // any call drops units older than the window; an empty sorted set is deleted by Redis
    expect(await limiterA.consume(stale.key, 5, 0)).toMatchObject({ remaining: 5 });
    expect(await redisA.exists(stale.redisKey)).toBe(0);
  });

  it('refund removes exactly the units of one reservation, even when another instance made it', async () => {
    const { key, redisKey } = freshKey();
    await limiterA.consume(key, 5, 1);
    const reserved = await limiterB.consume(key, 5, 3);
    expect(reserved).toMatchObject({ allowed: true, remaining: 1 });
    expect(reserved.reservation).toEqual(expect.any(String));
    await limiterA.refund(key, reserved);
    expect(await redisA.zcard(redisKey)).toBe(1);
    expect((await limiterA.consume(key, 5, 0)).remaining).toBe(4);
  });

  it('reads a key along in the same script (the change version, issue 18): its value, or null', async () => {
    const { key } = freshKey();
    const peekKey = `rv:peek${keyCounter}:submissions`;
    const missing = await limiterA.consume(key, 60, 1, peekKey);
    expect(missing).toMatchObject({ allowed: true, remaining: 59, peeked: null });
    await redisA.set(`${prefix}${peekKey}`, '42');
    expect(await limiterB.consume(key, 60, 1, peekKey)).toMatchObject({
      allowed: true,
      remaining: 58,
      peeked: '42',
    });
    // read also when refused, and never read without a key named
    expect(await limiterA.consume(key, 60, 100, peekKey)).toMatchObject({
      allowed: false,
      peeked: '42',
    });
    expect((await limiterA.consume(key, 60, 1)).peeked).toBeUndefined();
  });

  it('fails at once while Redis is unreachable (the fallback decides what happens then)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const down = createRedisClient({
      url: `redis://127.0.0.1:${closedPort}`,
      name: 'test-down',
      log,
      queueWhileOffline: false,
      commandTimeoutMs: 500,
    });
    try {
      const limiter = new RedisSlidingWindowLimiter(
        down,
        prefix,
        new AdmissionLedger({ maxKeys: 10 }),
      );
      expect(limiter.isReady()).toBe(false);
      const started = Date.now();
      await expect(limiter.consume('brand:down', 5, 1)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      down.disconnect();
    }
  });
});
