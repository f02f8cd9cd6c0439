import { AppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { digest, retryAfterSecondsOf, WindowCounter } from '../limits/windowCounter';

/** How many SCIM requests one token may make per window (SCIM_REQUESTS_PER_TOKEN, ..._WINDOW_MS). */
export interface ScimLimits {
  perToken: number;
  windowMs: number;
}

/**
 * The SCIM request limit, per token, shared by every records replica through Redis (the key holds
 * a hash of the token, never the token). Per token, so one brand's provider spends only its own
 * budget, never another brand's nor another provider's of its brand. There is no ceiling per
 * brand besides: a brand holds at most five live tokens, which bounds it at five budgets, and a
 * brand ceiling would let one of its providers starve the other. It counts before the token is
 * looked up, so a refused request costs one Redis call and no database work; an unknown token is
 * counted too (under its own key), which tells nothing, as it is refused either way.
 */
export class ScimRateLimit {
  private readonly counter: WindowCounter;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly limits: ScimLimits,
    log: Logger,
  ) {
    this.counter = new WindowCounter(redis, log, 'SCIM rate limit');
  }

  /** Counts one SCIM request of the token; throws rate_limited with the seconds to wait. */
  async take(presented: string): Promise<void> {
    const key = `${this.keyPrefix}scim:token:${digest(presented)}`;
    const [count, msLeft] = await this.counter.count(key, this.limits.windowMs);
    if (count > this.limits.perToken) {
      const retryAfterSeconds = retryAfterSecondsOf(msLeft);
      throw new AppError(
        'rate_limited',
        `This SCIM token made more than ${this.limits.perToken} requests in ${this.limits.windowMs / 1000} seconds; try again in ${retryAfterSeconds} seconds.`,
        { retryAfterSeconds },
      );
    }
  }
}
