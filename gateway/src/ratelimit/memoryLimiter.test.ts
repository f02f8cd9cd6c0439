import { AdmissionLedger } from './admissionLedger';
import { MemorySlidingWindowLimiter } from './memoryLimiter';

/** A limiter on a hand-driven clock: `at(ms)` sets the time every later call sees. */
function limiterAt(opts: { maxKeys?: number; instances?: number } = {}) {
  let now = 60_000_000; // a whole minute, so t=60 s is where a fixed window would restart
  const start = now;
  const ledger = new AdmissionLedger({ maxKeys: opts.maxKeys ?? 100, now: () => now });
  const limiter = new MemorySlidingWindowLimiter({ ledger, instances: opts.instances ?? 1 });
  return {
    limiter,
    ledger,
    /** Milliseconds since the start of the test. */
    at(ms: number): number {
      now = start + ms;
      return now;
    },
  };
}

async function consumeMany(
  limiter: MemorySlidingWindowLimiter,
  n: number,
  key = 'brand:b1',
  limit = 5,
): Promise<boolean[]> {
  const allowed: boolean[] = [];
  for (let i = 0; i < n; i++) allowed.push((await limiter.consume(key, limit, 1)).allowed);
  return allowed;
}

describe('MemorySlidingWindowLimiter', () => {
  it('admits exactly `limit` units, counting remaining down, then refuses', async () => {
    const { limiter } = limiterAt();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await limiter.consume('brand:b1', 5, 1);
      expect(d).toMatchObject({ allowed: true, limit: 5, retryAfterSeconds: 0, degraded: true });
      remaining.push(d.remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = await limiter.consume('brand:b1', 5, 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, degraded: true });
  });

  it('keeps budgets of different keys apart', async () => {
    const { limiter } = limiterAt();
    expect(await consumeMany(limiter, 6, 'brand:a')).toEqual([true, true, true, true, true, false]);
    expect((await limiter.consume('brand:b', 5, 1)).allowed).toBe(true);
  });

  it('consumes nothing on a refusal: a client that waits as told is admitted on time', async () => {
    const { limiter, at } = limiterAt();
    for (const t of [0, 10_000, 20_000]) {
      at(t);
      expect((await limiter.consume('brand:b1', 3, 1)).allowed).toBe(true);
    }
    at(30_000);
    for (let i = 0; i < 20; i++) {
      const d = await limiter.consume('brand:b1', 3, 1);
      expect(d.allowed).toBe(false);
      expect(d.retryAfterSeconds).toBe(30);
    }
    // the unit of t=0 leaves the window at t=60 s, whatever the 20 refusals did
    at(59_999);
    expect((await limiter.consume('brand:b1', 3, 1)).allowed).toBe(false);
    at(60_000);
    expect(await consumeMany(limiter, 2, 'brand:b1', 3)).toEqual([true, false]);
  });

  it('frees units one by one as the window slides, with no double burst at a minute edge', async () => {
    const { limiter, at } = limiterAt();
    // one unit each second from t=55 s to t=59 s: the budget of 5 is spent just before "the minute"
    for (let i = 0; i < 5; i++) {
      at(55_000 + i * 1_000);
      expect((await limiter.consume('brand:b1', 5, 1)).allowed).toBe(true);
    }
    // a fixed window would start afresh at t=60 s and admit 5 more; a sliding one admits none
    at(60_000);
    expect(await consumeMany(limiter, 3)).toEqual([false, false, false]);
    at(114_999);
    expect(await consumeMany(limiter, 1)).toEqual([false]);
    // then exactly one unit frees up each second, as the units of t=55..59 s leave
    for (let i = 0; i < 5; i++) {
      at(115_000 + i * 1_000);
      expect(await consumeMany(limiter, 2)).toEqual([true, false]);
    }
  });

  it('reports resetSeconds and retryAfterSeconds as whole seconds, rounded up, never early', async () => {
    const { limiter, at } = limiterAt();
    at(0);
    expect(await limiter.consume('brand:b1', 2, 0)).toMatchObject({
      allowed: true,
      remaining: 2,
      resetSeconds: 0,
      retryAfterSeconds: 0,
    });
    expect((await limiter.consume('brand:b1', 2, 1)).resetSeconds).toBe(60);
    at(20_500);
    const second = await limiter.consume('brand:b1', 2, 1);
    // the oldest unit (t=0) leaves at t=60 s: 39.5 s rounds up to 40
    expect(second).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
    at(59_001);
    const refused = await limiter.consume('brand:b1', 2, 1);
    expect(refused).toMatchObject({ allowed: false, resetSeconds: 1, retryAfterSeconds: 1 });
    // a refusal asking for 2 units must wait for the second-oldest unit (t=20.5 s -> 80.5 s)
    const pair = await limiter.consume('brand:b1', 2, 2);
    expect(pair).toMatchObject({ allowed: false, retryAfterSeconds: 22 });
    for (const d of [second, refused, pair]) {
      expect(Number.isInteger(d.resetSeconds) && d.resetSeconds > 0).toBe(true);
    }
    expect(Number.isInteger(pair.retryAfterSeconds)).toBe(true);
  });

  it('takes a batch (cost > 1) whole or not at all; cost 0 only inspects', async () => {
    const { limiter } = limiterAt();
    expect((await limiter.consume('brand:b1', 5, 3)).remaining).toBe(2);
    const tooMany = await limiter.consume('brand:b1', 5, 3);
    expect(tooMany).toMatchObject({ allowed: false, remaining: 2 });
    const inspect = await limiter.consume('brand:b1', 5, 0);
    expect(inspect).toMatchObject({ allowed: true, remaining: 2 });
    expect((await limiter.consume('brand:b1', 5, 2)).allowed).toBe(true);
    const spent = await limiter.consume('brand:b1', 5, 0);
    expect(spent).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume('brand:b1', 5, 1)).allowed).toBe(false);
  });

  it('admits limit / instances per instance (at least 1), and reports that share as the limit', async () => {
    const two = limiterAt({ instances: 2 }).limiter;
    const allowed = await consumeMany(two, 40, 'brand:b1', 60);
    expect(allowed.filter(Boolean)).toHaveLength(30);
    expect(allowed.slice(0, 30).every(Boolean)).toBe(true);
    expect((await two.consume('brand:b1', 60, 0)).limit).toBe(30);

    const many = limiterAt({ instances: 7 }).limiter;
    // floor(60 / 7) = 8: the deployment total (56) stays below the plan limit
    expect((await consumeMany(many, 20, 'brand:b1', 60)).filter(Boolean)).toHaveLength(8);

    const more = limiterAt({ instances: 10 }).limiter;
    expect((await consumeMany(more, 3, 'brand:b1', 5)).filter(Boolean)).toHaveLength(1);
  });

  it('is bounded: past maxKeys the least recently used budget is forgotten', async () => {
    const { limiter } = limiterAt({ maxKeys: 2 });
    expect(await consumeMany(limiter, 6, 'a')).toEqual([true, true, true, true, true, false]);
    await limiter.consume('b', 5, 1);
    await limiter.consume('c', 5, 1);
    // three budgets, room for two: 'a' went, and starts afresh
    expect((await limiter.consume('a', 5, 0)).remaining).toBe(5);

    const lru = limiterAt({ maxKeys: 2 }).limiter;
    await consumeMany(lru, 5, 'x');
    await lru.consume('y', 5, 1);
    // touching 'x' makes 'y' the least recently used, so 'z' pushes out 'y', not 'x'
    expect((await lru.consume('x', 5, 0)).remaining).toBe(0);
    await lru.consume('z', 5, 1);
    expect((await lru.consume('x', 5, 1)).allowed).toBe(false);
    expect((await lru.consume('y', 5, 0)).remaining).toBe(5);
  });

  it('starts from what the instance admitted through Redis: an outage opens no fresh window', async () => {
    const { limiter, ledger, at } = limiterAt();
    // 4 of 5 units admitted through Redis in the last 30 s, then Redis goes away
    for (const t of [0, 10_000, 20_000, 30_000])
      ledger.record('brand:b1', ledger.mint(), 1, at(t), 'shared');
    at(40_000);
    expect(await consumeMany(limiter, 3)).toEqual([true, false, false]);
    // the unit of t=0 leaves at t=60 s, as it would have in Redis
    at(60_000);
    expect(await consumeMany(limiter, 2)).toEqual([true, false]);
    // and the fallback's own admissions are marked for Redis to be told
    expect(ledger.isSynced('brand:b1', 'any')).toBe(false);
  });

  it('refund gives back exactly the units an allowed decision admitted', async () => {
    const { limiter } = limiterAt();
    await consumeMany(limiter, 3);
    const batch = await limiter.consume('brand:b1', 5, 2);
    expect(batch).toMatchObject({ allowed: true, remaining: 0 });
    await limiter.refund('brand:b1', batch);
    expect((await limiter.consume('brand:b1', 5, 0)).remaining).toBe(2);
    // a refused decision carries no reservation, so refunding it changes nothing
    await consumeMany(limiter, 2);
    const refused = await limiter.consume('brand:b1', 5, 1);
    expect(refused.allowed).toBe(false);
    await limiter.refund('brand:b1', refused);
    expect((await limiter.consume('brand:b1', 5, 0)).remaining).toBe(0);
  });
});
