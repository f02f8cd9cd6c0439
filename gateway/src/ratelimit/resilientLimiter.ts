import type { Logger } from '@brand/shared/logger';
import type { ProbedRateLimiter, RateLimitDecision, RateLimiter } from './limiter';

/**
 * Redis first; the in-memory limiter when Redis is down or too slow. Never unlimited,
 * never an error for the client. Logs each switch once, not once per request.
 */
export class ResilientLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly primary: ProbedRateLimiter,
    private readonly fallback: RateLimiter,
    private readonly log: Logger,
    private readonly onDecision: (d: RateLimitDecision) => void = () => undefined,
  ) {}

  async consume(
    key: string,
    limit: number,
    cost: number,
    peekKey?: string,
    peekFresh?: boolean,
  ): Promise<RateLimitDecision> {
    let decision: RateLimitDecision;
    if (this.primary.isReady()) {
      try {
        decision = await this.primary.consume(key, limit, cost, peekKey, peekFresh);
        this.setDegraded(false);
      } catch (err) {
        this.setDegraded(true, err);
        decision = await this.fallback.consume(key, limit, cost);
      }
    } else {
      this.setDegraded(true);
      decision = await this.fallback.consume(key, limit, cost);
    }
    this.onDecision(decision);
    return decision;
  }

  async refund(key: string, decision: RateLimitDecision): Promise<void> {
    const store = decision.degraded ? this.fallback : this.primary;
    await store
      .refund(key, decision)
      .catch((err: unknown) => this.log.debug({ err }, 'rate-limit refund dropped'));
  }

  private setDegraded(degraded: boolean, err?: unknown): void {
    if (degraded === this.degraded) return;
    this.degraded = degraded;
    if (degraded)
      this.log.warn({ err }, 'rate limiting falls back to per-instance memory: Redis unavailable');
    else this.log.info('rate limiting is shared through Redis again');
  }
}
