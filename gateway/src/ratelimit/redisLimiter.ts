import type { Redis } from '@brand/shared/redis';
import { randomBase62 } from '@brand/shared/ids';
import { WINDOW_SECONDS, type ProbedRateLimiter, type RateLimitDecision } from './limiter';
import { SLIDING_WINDOW_LUA } from './slidingWindowScript';
import { toSeconds } from './seconds';

/** allowed, remaining, reset_us, retry_us, and the peeked key's value when one was named and exists. */
type SlidingWindowResult = [number, number, number, number, (string | null)?];

interface SlidingWindowRedis extends Redis {
  slidingWindow(
    key: string,
    limit: number,
    windowMs: number,
    cost: number,
    member: string,
  ): Promise<SlidingWindowResult>;
  slidingWindowPeek(
    key: string,
    peekKey: string,
    limit: number,
    windowMs: number,
    cost: number,
    member: string,
  ): Promise<SlidingWindowResult>;
}

/**
 * The shared limiter: one Lua script per call (EVALSHA), exact under any concurrency
 * because Redis runs scripts one at a time. Throws when Redis is unreachable or slow;
 * the fallback wrapper decides what happens then.
 */
export class RedisSlidingWindowLimiter implements ProbedRateLimiter {
  private readonly redis: SlidingWindowRedis;
  private readonly instance = randomBase62(8);
  private sequence = 0;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    if (!('slidingWindow' in redis))
      redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
    // the same script (one SHA) with the key it reads along
    if (!('slidingWindowPeek' in redis))
      redis.defineCommand('slidingWindowPeek', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
    this.redis = redis as SlidingWindowRedis;
  }

  /** True when the connection is up; while it is down, calls fail at once (no offline queue). */
  isReady(): boolean {
    return this.redis.status === 'ready';
  }

  async consume(
    key: string,
    limit: number,
    cost: number,
    peekKey?: string,
  ): Promise<RateLimitDecision> {
    const member = `${this.instance}:${(this.sequence = (this.sequence + 1) % 1e9)}`;
    const windowMs = WINDOW_SECONDS * 1000;
    const [allowed, remaining, resetUs, retryUs, peeked] =
      peekKey === undefined
        ? await this.redis.slidingWindow(this.storeKey(key), limit, windowMs, cost, member)
        : await this.redis.slidingWindowPeek(
            this.storeKey(key),
            `${this.keyPrefix}${peekKey}`,
            limit,
            windowMs,
            cost,
            member,
          );
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, remaining),
      resetSeconds: toSeconds(resetUs / 1000),
      retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, toSeconds(retryUs / 1000)),
      degraded: false,
      ...(allowed === 1 && cost > 0 ? { reservation: `${member}/${cost}` } : {}),
      ...(peekKey === undefined ? {} : { peeked: peeked ?? null }),
    };
  }

  async refund(key: string, decision: RateLimitDecision): Promise<void> {
    const [member, cost] = (decision.reservation ?? '').split('/');
    if (!member || !cost) return;
    const members = Array.from({ length: Number(cost) }, (_, i) => `${member}:${i + 1}`);
    await this.redis.zrem(this.storeKey(key), ...members);
  }

  private storeKey(key: string): string {
    return `${this.keyPrefix}rl:${key}`;
  }
}
