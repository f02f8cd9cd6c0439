import { clientAddressKey } from '@brand/shared/httpServer';
import type { Logger } from '@brand/shared/logger';
import { digest, retryAfterSecondsOf, WindowCounter, type Redis } from '@brand/shared/redis';

/** How many wrong SCIM tokens one client address may send per window (SCIM_AUTH_FAILURE_*). */
export interface WrongTokenLimits {
  perAddress: number;
  windowMs: number;
}

/** What records answered for a token: refused is its 401. */
export type AttemptOutcome = 'accepted' | 'refused' | 'unanswered';

/** How long a token that records accepted is let past its address's throttle. */
const KNOWN_GOOD_SECONDS = 24 * 60 * 60;

/**
 * Wrong SCIM tokens, counted per client address (req.ip, so X-Forwarded-For only as TRUST_PROXY
 * says; an IPv6 client by its /64, as sign-in's client key) in a fixed window shared by every
 * console replica through Redis (keys hold hashes, never the address or the token). Past the
 * bound a well-formed token is answered 429 without asking records, so a guesser costs one
 * Redis call a try and no records round trip.
 *
 * Each attempt is counted before records is asked and the count is taken back unless records
 * refused the token: concurrent guesses cannot all slip under the bound, and an identity
 * provider's own requests never spend its address's budget.
 *
 * Sign-in's per-client limit locks out everyone behind an address; here a shared NAT would let
 * one tenant's guesser stop another tenant's provisioning, so a token records accepted within a
 * day is still let through past the bound (a guesser cannot name one: that is what it guesses).
 * A token never seen working waits out the window like the guesser: unasked, it cannot be told
 * from a guess. While Redis is unreachable each process counts on its own (as records' sign-in
 * and SCIM limits do, never unlimited) and no token is known good.
 */
export class WrongTokenThrottle {
  private readonly counter: WindowCounter;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly limits: WrongTokenLimits,
    private readonly log: Logger,
  ) {
    this.counter = new WindowCounter(redis, log, 'SCIM wrong-token throttle');
  }

  /**
   * Counts an attempt from `ip` with `token`: the seconds to wait when the address is past its
   * bound and the token is not known good, else undefined (ask records, then settle()).
   */
  async attempt(ip: string | undefined, token: string): Promise<number | undefined> {
    const [count, msLeft] = await this.counter.count(this.addressKey(ip), this.limits.windowMs);
    if (count <= this.limits.perAddress || (await this.isKnownGood(token))) return undefined;
    return retryAfterSecondsOf(msLeft);
  }

  /**
   * What records answered: a refused token (401) keeps its count and is no longer known good;
   * an accepted one takes the count back and is known good; any other answer (records could not
   * say, or the token's own rate limit) takes the count back only.
   */
  async settle(ip: string | undefined, token: string, outcome: AttemptOutcome): Promise<void> {
    const good = this.goodKey(token);
    try {
      if (outcome === 'refused') {
        await this.redis.del(good);
        return;
      }
      await this.counter.uncount(this.addressKey(ip));
      if (outcome === 'accepted') await this.redis.set(good, '1', 'EX', KNOWN_GOOD_SECONDS);
    } catch (err) {
      this.log.warn({ err }, 'SCIM wrong-token throttle: Redis unreachable');
    }
  }

  private async isKnownGood(token: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.goodKey(token))) === 1;
    } catch {
      return false;
    }
  }

  private addressKey(ip: string | undefined): string {
    return `${this.keyPrefix}scim:wrong-token:${digest(clientAddressKey(ip))}`;
  }

  private goodKey(token: string): string {
    return `${this.keyPrefix}scim:known-good:${digest(token)}`;
  }
}
