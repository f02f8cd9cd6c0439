import { LRUCache } from 'lru-cache';
import { WINDOW_SECONDS, type RateLimitDecision, type RateLimiter } from './limiter';
import { toSeconds } from './seconds';

/**
 * The same sliding-log algorithm in process memory, for when Redis is unreachable. It is
 * bounded (an LRU over `maxKeys` budgets, each at most `limit` timestamps) and per
 * instance: each instance admits limit / `instances`, so a brand's total across the
 * deployment stays near its tier's limit rather than becoming unlimited.
 */
export class MemorySlidingWindowLimiter implements RateLimiter {
  private readonly logs: LRUCache<string, number[]>;

  constructor(private readonly opts: { maxKeys: number; instances: number; now?: () => number }) {
    this.logs = new LRUCache({ max: opts.maxKeys });
  }

  consume(key: string, limit: number, cost: number): Promise<RateLimitDecision> {
    const now = this.opts.now?.() ?? performance.timeOrigin + performance.now();
    const windowMs = WINDOW_SECONDS * 1000;
    const share = Math.max(1, Math.floor(limit / this.opts.instances));
    const log = (this.logs.get(key) ?? []).filter((t) => t > now - windowMs);
    const allowed = log.length + cost <= share;
    if (allowed) for (let i = 0; i < cost; i++) log.push(now);
    if (log.length > 0) this.logs.set(key, log);
    const oldest = log[0];
    const blocking = log[log.length + cost - share - 1];
    return Promise.resolve({
      allowed,
      limit: share,
      remaining: Math.max(0, share - log.length),
      resetSeconds: oldest === undefined ? 0 : toSeconds(oldest + windowMs - now),
      retryAfterSeconds: allowed ? 0 : Math.max(1, toSeconds((blocking ?? now) + windowMs - now)),
      degraded: true,
      ...(allowed && cost > 0 ? { reservation: `${now}/${cost}` } : {}),
    });
  }

  /** Removes the admitted units: entries of the reservation's timestamp (equal times are interchangeable). */
  refund(key: string, decision: RateLimitDecision): Promise<void> {
    const [at, cost] = (decision.reservation ?? '').split('/').map(Number);
    const log = this.logs.get(key);
    if (log && at !== undefined && cost !== undefined) {
      for (let n = 0; n < cost; n++) {
        const index = log.lastIndexOf(at);
        if (index >= 0) log.splice(index, 1);
      }
    }
    return Promise.resolve();
  }
}
