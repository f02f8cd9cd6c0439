import type { AdmissionLedger } from './admissionLedger';
import { WINDOW_SECONDS, type RateLimitDecision, type RateLimiter } from './limiter';
import { toSeconds } from './seconds';

/**
 * The same sliding-log algorithm in process memory, for when Redis is unreachable. It
 * decides from the instance's admission ledger, which holds what this instance admitted in
 * the window whichever store decided it, so an outage does not open a fresh window (issue
 * 19). Per instance: each instance admits limit / `instances`, so a brand's total across
 * the deployment stays near its tier's limit rather than becoming unlimited.
 */
export class MemorySlidingWindowLimiter implements RateLimiter {
  constructor(private readonly opts: { ledger: AdmissionLedger; instances: number }) {}

  consume(key: string, limit: number, cost: number): Promise<RateLimitDecision> {
    const ledger = this.opts.ledger;
    const now = ledger.now();
    const windowMs = WINDOW_SECONDS * 1000;
    const share = Math.max(1, Math.floor(limit / this.opts.instances));
    const log = ledger.times(key);
    const allowed = log.length + cost <= share;
    const member = allowed && cost > 0 ? ledger.mint() : undefined;
    if (member) {
      ledger.record(key, member, cost, now, 'local');
      for (let i = 0; i < cost; i++) log.push(now);
    }
    const oldest = log[0];
    const blocking = log[log.length + cost - share - 1];
    return Promise.resolve({
      allowed,
      limit: share,
      remaining: Math.max(0, share - log.length),
      resetSeconds: oldest === undefined ? 0 : toSeconds(oldest + windowMs - now),
      retryAfterSeconds: allowed ? 0 : Math.max(1, toSeconds((blocking ?? now) + windowMs - now)),
      degraded: true,
      ...(member ? { reservation: `${member}/${cost}` } : {}),
    });
  }

  /** Removes the units of the reservation from the ledger. */
  refund(key: string, decision: RateLimitDecision): Promise<void> {
    const [member, cost] = (decision.reservation ?? '').split('/');
    if (member && cost) this.opts.ledger.refund(key, member, Number(cost));
    return Promise.resolve();
  }
}
