import { AppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { digest, retryAfterSecondsOf, WindowCounter } from '../limits/windowCounter';

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
 * The sign-in link rate limit, per address from one client and per client, shared by every
 * records replica through Redis (keys hold hashes, never the address). Every request counts,
 * whether or not the address is a member, so the limit tells nothing about membership. A
 * client that spends an address's budget spends only its own: the member asking from another
 * client is still answered. A fixed window (windowCounter.ts) is enough here: the limit blunts
 * mail bombing and guessing, and twice the limit across a window edge is still a handful of mails.
 */
export class SignInRateLimit {
  private readonly counter: WindowCounter;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly limits: SignInLimits,
    log: Logger,
  ) {
    this.counter = new WindowCounter(redis, log, 'sign-in rate limit');
  }

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
        const retryAfterSeconds = retryAfterSecondsOf(ttlMs);
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
      const retryAfterSeconds = retryAfterSecondsOf(ttlMs);
      throw new AppError(
        'rate_limited',
        `Too many ${what} were started; try again in ${retryAfterSeconds} seconds.`,
        { retryAfterSeconds },
      );
    }
  }

  private count(key: string): Promise<[number, number]> {
    return this.counter.count(key, this.limits.windowMs);
  }
}
