import { createLogger } from '@brand/shared/logger';
import type { ProbedRateLimiter, RateLimitDecision } from './limiter';
import { AdmissionLedger } from './admissionLedger';
import { MemorySlidingWindowLimiter } from './memoryLimiter';
import { ResilientLimiter } from './resilientLimiter';

/**
 * Stands in for the Redis limiter: the same methods, with readiness and failure under
 * the test's control. The ResilientLimiter is the unit here; the real Redis limiter is
 * exercised against a real Redis in test/integration/rateLimit.redis.test.ts.
 */
class FakePrimary implements ProbedRateLimiter {
  refunds = 0;
  ready = true;
  failWith: Error | undefined;
  calls = 0;

  isReady(): boolean {
    return this.ready;
  }

  consume(_key: string, limit: number, cost: number): Promise<RateLimitDecision> {
    this.calls += 1;
    if (this.failWith) return Promise.reject(this.failWith);
    return Promise.resolve({
      allowed: true,
      limit,
      remaining: limit - cost,
      resetSeconds: 60,
      retryAfterSeconds: 0,
      degraded: false,
      reservation: 'r/1',
    });
  }

  refund(): Promise<void> {
    this.refunds += 1;
    return Promise.resolve();
  }
}

function setup() {
  const primary = new FakePrimary();
  const ledger = new AdmissionLedger({ maxKeys: 10, now: () => 0 });
  const fallback = new MemorySlidingWindowLimiter({ ledger, instances: 1 });
  const lines: Array<{ level: string; msg: string; err?: unknown }> = [];
  const log = createLogger({
    service: 'test',
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[0]) },
  });
  const decisions: RateLimitDecision[] = [];
  const limiter = new ResilientLimiter(primary, fallback, log, (d) => decisions.push(d));
  return { primary, fallback, lines, decisions, limiter };
}

describe('ResilientLimiter', () => {
  it('uses Redis while it is ready, leaving the fallback untouched', async () => {
    const { primary, fallback, lines, decisions, limiter } = setup();
    for (let i = 0; i < 3; i++) {
      expect(await limiter.consume('brand:b1', 2, 1)).toMatchObject({
        allowed: true,
        degraded: false,
      });
    }
    expect(primary.calls).toBe(3);
    expect((await fallback.consume('brand:b1', 2, 0)).remaining).toBe(2);
    expect(decisions).toHaveLength(3);
    expect(lines).toEqual([]);
  });

  it('falls back to the in-memory limit when a Redis call fails, and never admits past it', async () => {
    const { primary, limiter, decisions } = setup();
    primary.failWith = new Error('Command timed out');
    const outcomes: RateLimitDecision[] = [];
    for (let i = 0; i < 4; i++) outcomes.push(await limiter.consume('brand:b1', 3, 1));
    expect(outcomes.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(outcomes.every((d) => d.degraded)).toBe(true);
    expect(outcomes[3]!.retryAfterSeconds).toBe(60);
    expect(primary.calls).toBe(4);
    expect(decisions.map((d) => d.degraded)).toEqual([true, true, true, true]);
  });

  it('does not call Redis at all while it is not ready', async () => {
    const { primary, limiter } = setup();
    primary.ready = false;
    const d = await limiter.consume('brand:b1', 3, 1);
    expect(d).toMatchObject({ allowed: true, degraded: true, remaining: 2 });
    expect(primary.calls).toBe(0);
  });

  it('logs each switch once, not once per request', async () => {
    const { primary, limiter, lines } = setup();
    await limiter.consume('brand:b1', 100, 1);
    primary.failWith = new Error('connect ECONNREFUSED');
    for (let i = 0; i < 5; i++) await limiter.consume('brand:b1', 100, 1);
    primary.failWith = undefined;
    primary.ready = false;
    for (let i = 0; i < 5; i++) await limiter.consume('brand:b1', 100, 1);
    primary.ready = true;
    for (let i = 0; i < 5; i++) await limiter.consume('brand:b1', 100, 1);
    primary.ready = false;
    await limiter.consume('brand:b1', 100, 1);

    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'rate limiting falls back to per-instance memory: Redis unavailable'],
      ['info', 'rate limiting is shared through Redis again'],
      ['warn', 'rate limiting falls back to per-instance memory: Redis unavailable'],
    ]);
    expect(JSON.stringify(lines[0]!.err)).toContain('ECONNREFUSED');
  });

  it('keeps the fallback budget across the switch back and forth within the window', async () => {
    const { primary, limiter } = setup();
    primary.ready = false;
    expect((await limiter.consume('brand:b1', 2, 2)).allowed).toBe(true);
    primary.ready = true;
    expect((await limiter.consume('brand:b1', 2, 1)).degraded).toBe(false);
    primary.ready = false;
    // the units the fallback counted are still counted: no fresh budget per outage
    expect(await limiter.consume('brand:b1', 2, 1)).toMatchObject({
      allowed: false,
      degraded: true,
    });
  });

  it('sends a refund to the store that made the decision', async () => {
    const { primary, limiter } = setup();
    const shared = await limiter.consume('addr:x', 5, 1);
    await limiter.refund('addr:x', shared);
    expect(primary.refunds).toBe(1);
    primary.ready = false;
    const local = await limiter.consume('addr:x', 5, 1);
    expect(local.degraded).toBe(true);
    await limiter.refund('addr:x', local);
    expect(primary.refunds).toBe(1);
  });
});
