import { writeAtEndOfTurn, type Redis } from '@brand/shared/redis';
import type { AdmissionLedger } from './admissionLedger';
import { WINDOW_SECONDS, type ProbedRateLimiter, type RateLimitDecision } from './limiter';
import { SLIDING_WINDOW_LUA } from './slidingWindowScript';
import { toSeconds } from './seconds';

/**
 * allowed, remaining, reset_us, retry_us, the epoch when it is not the one sent (else null),
 * and the peeked key's value when one was named and exists (else null).
 */
type SlidingWindowResult = [number, number, number, number, string | null, string | null];

interface SlidingWindowRedis extends Redis {
  slidingWindow(
    key: string,
    epochKey: string,
    ...args: Array<string | number>
  ): Promise<SlidingWindowResult>;
  slidingWindowPeek(
    key: string,
    epochKey: string,
    peekKey: string,
    ...args: Array<string | number>
  ): Promise<SlidingWindowResult>;
}

/** The script's answer when Redis's epoch is not the caller's and the call carried no units. */
const EPOCH_CHANGED = -1;

/**
 * The shared limiter: one Lua script per call (EVALSHA), exact under any concurrency
 * because Redis runs scripts one at a time. Throws when Redis is unreachable or slow;
 * the fallback wrapper decides what happens then.
 *
 * Every admission is also written to this instance's admission ledger. A budget whose
 * units Redis may not hold (the fallback admitted some, or Redis's epoch changed: it
 * restarted empty) carries the ledger's units in the same script call, which puts them
 * back before deciding; the normal path sends none and costs no extra round trip. Only a
 * call that finds a new epoch unannounced makes a second call, once per budget.
 */
export class RedisSlidingWindowLimiter implements ProbedRateLimiter {
  private readonly redis: SlidingWindowRedis;
  /** The epoch this instance last saw; undefined until the first answer. */
  private epoch: string | undefined;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly ledger: AdmissionLedger,
    /** Called when Redis's epoch changes after the first (Redis lost its rate-limit state). */
    private readonly onStateLost: () => void = () => undefined,
  ) {
    if (!('slidingWindow' in redis))
      redis.defineCommand('slidingWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
    // the same script (one SHA) with the key it reads along
    if (!('slidingWindowPeek' in redis))
      redis.defineCommand('slidingWindowPeek', { numberOfKeys: 3, lua: SLIDING_WINDOW_LUA });
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
    // At most two calls: a call that carries the units is always decided.
    for (let call = 1; call <= 2; call++) {
      const sent = this.epoch;
      const seeds = this.ledger.isSynced(key, sent) ? undefined : this.ledger.seeds(key);
      const member = this.ledger.mint();
      const args: Array<string | number> = [
        limit,
        WINDOW_SECONDS * 1000,
        cost,
        member,
        sent ?? '',
        seeds ? '1' : '0',
      ];
      if (seeds) {
        for (const [i, m] of seeds.members.entries())
          args.push(m, Math.ceil(seeds.agesMs[i]! * 1000));
      }
      // with the other requests of this turn, in one write (writesPerTurn.ts)
      writeAtEndOfTurn(this.redis);
      const [allowed, remaining, resetUs, retryUs, news, peeked] =
        peekKey === undefined
          ? await this.redis.slidingWindow(this.storeKey(key), this.epochKey(), ...args)
          : await this.redis.slidingWindowPeek(
              this.storeKey(key),
              this.epochKey(),
              `${this.keyPrefix}${peekKey}`,
              ...args,
            );
      if (news !== null) this.adoptEpoch(news);
      if (allowed === EPOCH_CHANGED) continue; // the budget is now unsynced: the next call seeds it
      if (allowed === 1 && cost > 0)
        this.ledger.record(key, member, cost, this.ledger.now(), 'shared');
      // the seeds went to the epoch the script saw: the one sent unless it said otherwise
      if (seeds) this.ledger.markSynced(key, news ?? sent!, seeds.version);
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
    throw new Error('rate-limit script left the call undecided twice'); // the fallback decides
  }

  async refund(key: string, decision: RateLimitDecision): Promise<void> {
    const [member, cost] = (decision.reservation ?? '').split('/');
    if (!member || !cost) return;
    this.ledger.refund(key, member, Number(cost));
    const members = Array.from({ length: Number(cost) }, (_, i) => `${member}:${i + 1}`);
    await this.redis.zrem(this.storeKey(key), ...members);
  }

  private adoptEpoch(epoch: string): void {
    const lost = this.epoch !== undefined;
    this.epoch = epoch;
    if (lost) this.onStateLost();
  }

  private storeKey(key: string): string {
    return `${this.keyPrefix}rl:${key}`;
  }

  private epochKey(): string {
    return `${this.keyPrefix}rl-epoch`;
  }
}
