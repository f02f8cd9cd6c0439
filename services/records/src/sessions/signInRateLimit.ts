import { createHash } from 'node:crypto';
import { AppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';

/**
 * How many sign-in links one client may ask for one address, and for all addresses, per
 * window. There is deliberately no limit per address alone: anyone could spend it and lock
 * the member out (issue 23). Mail to one address is spaced instead, when links are minted.
 */
export interface SignInLimits {
  perAddressAndClient: number;
  perClient: number;
  windowMs: number;
}

/**
 * Counts one request in a window that starts at the key's first request and returns the
 * count and the milliseconds left. A fixed window is enough here: the limit blunts mail
 * bombing and guessing, and twice the limit across a window edge is still a handful of mails.
 */
const COUNT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
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
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

/**
 * The sign-in link rate limit, per address from one client and per client, shared by every
 * records replica through Redis (keys hold hashes, never the address). Every request counts,
 * whether or not the address is a member, so the limit tells nothing about membership. A
 * client that spends an address's budget spends only its own: the member asking from another
 * client is still answered.
 */
export class SignInRateLimit {
  private readonly memory = new MemoryCounters();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly limits: SignInLimits,
    private readonly log: Logger,
  ) {}

  /** Throws rate_limited with the seconds to wait when either limit is exceeded. */
  async take(email: string, clientKey: string): Promise<void> {
    const checks: [string, number][] = [
      [
        `${this.keyPrefix}signin:addr-client:${digest(`${clientKey}\n${email}`)}`,
        this.limits.perAddressAndClient,
      ],
      [`${this.keyPrefix}signin:client:${digest(clientKey)}`, this.limits.perClient],
    ];
    for (const [key, limit] of checks) {
      const [count, ttlMs] = await this.count(key);
      if (count > limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
        throw new AppError(
          'rate_limited',
          `Too many sign-in links were requested; try again in ${retryAfterSeconds} seconds.`,
          { retryAfterSeconds },
        );
      }
    }
  }

  /**
   * Counts a passkey sign-in challenge asked for by a client: each stores a row for minutes, so
   * one client may not ask for more than three times its link budget per window.
   */
  takePasskeyChallenge(clientKey: string): Promise<void> {
    return this.takeStart('passkey', clientKey, 'passkey sign-ins');
  }

  /**
   * Counts a single sign-on started by a client (its state row lives for minutes), on the same
   * terms as passkey challenges and counted apart from them.
   */
  takeSsoStart(clientKey: string): Promise<void> {
    return this.takeStart('sso', clientKey, 'single sign-ons');
  }

  private async takeStart(kind: string, clientKey: string, what: string): Promise<void> {
    const key = `${this.keyPrefix}signin:${kind}-client:${digest(clientKey)}`;
    const [count, ttlMs] = await this.count(key);
    if (count > this.limits.perClient * 3) {
      const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
      throw new AppError(
        'rate_limited',
        `Too many ${what} were started; try again in ${retryAfterSeconds} seconds.`,
        { retryAfterSeconds },
      );
    }
  }

  private async count(key: string): Promise<[number, number]> {
    try {
      const [count, ttl] = (await this.redis.eval(COUNT_SCRIPT, 1, key, this.limits.windowMs)) as [
        number,
        number,
      ];
      return [count, ttl > 0 ? ttl : this.limits.windowMs];
    } catch (err) {
      this.log.warn({ err }, 'sign-in rate limit: Redis unreachable, counting in this process');
      return this.memory.count(key, this.limits.windowMs);
    }
  }
}
