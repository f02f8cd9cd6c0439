import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * Counts one request in a window that starts at the key's first request and returns the
 * count and the milliseconds left. A fixed window is enough for these limits: twice the
 * limit across a window edge is still bounded, and one round trip counts and reads.
 */
const COUNT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
`;

/** Takes back one count of a window still open (never creates a key without expiry). */
const UNCOUNT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** Window counters kept in this process while Redis is unreachable: never unlimited. */
class MemoryCounters {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  count(key: string, windowMs: number): [number, number] {
    const now = Date.now();
    if (this.windows.size > 10_000) {
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return [w.count, w.resetAt - now];
  }

  uncount(key: string): void {
    const w = this.windows.get(key);
    if (w && w.resetAt > Date.now() && w.count > 0) w.count -= 1;
  }
}

/** A key part for something that must not be stored as it is (an address, a token). */
export const digest = (s: string): string =>
  createHash('sha256').update(s).digest('hex').slice(0, 32);

/** The whole seconds a refused caller waits for its window to end (at least one). */
export const retryAfterSecondsOf = (msLeft: number): number =>
  Math.max(1, Math.ceil(msLeft / 1000));

/**
 * Fixed-window request counters shared by every replica through Redis (records' sign-in and SCIM
 * limits, the console's wrong SCIM tokens); while Redis is unreachable each process counts on
 * its own, so a limit is then per replica, never gone.
 */
export class WindowCounter {
  private readonly memory = new MemoryCounters();

  /** `what` names the limit in the warning logged when Redis cannot count. */
  constructor(
    private readonly redis: Redis,
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  /** Counts one request under `key` and answers the count so far and the window's ms left. */
  async count(key: string, windowMs: number): Promise<[number, number]> {
    try {
      const [count, ttl] = (await this.redis.eval(COUNT_SCRIPT, 1, key, windowMs)) as [
        number,
        number,
      ];
      return [count, ttl > 0 ? ttl : windowMs];
    } catch (err) {
      this.log.warn({ err }, `${this.what}: Redis unreachable, counting in this process`);
      return this.memory.count(key, windowMs);
    }
  }

  /**
   * Takes back one count under `key` (best effort): for a limit of failures, which counts each
   * attempt before it is made (concurrent attempts cannot all slip under the limit) and takes
   * the count back when the attempt did not fail.
   */
  async uncount(key: string): Promise<void> {
    try {
      await this.redis.eval(UNCOUNT_SCRIPT, 1, key);
    } catch {
      // Redis is unreachable: count() fell back to this process too.
      this.memory.uncount(key);
    }
  }
}
