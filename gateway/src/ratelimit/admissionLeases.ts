import type { LRUCache } from 'lru-cache';
import { growingLru } from './growingLru';
import { toSeconds } from './seconds';

/**
 * How long a lease's units may be handed out, from the moment its call was sent. Redis counts
 * them from the end of this span, so a unit is never used after the time Redis counts it from.
 */
export const LEASE_SPAN_MS = 1_000;

/** Units a call asks for beyond its own, at most: one Redis call per 32 requests of a budget. */
const MAX_LEASE = 31;

/**
 * A budget leases only when a span's share of it is at least this many units (600 a minute):
 * a lease's units that a burst's last requests did not take are counted until given back, so
 * a burst that spends a budget from several gateways at once may admit a few fewer than its
 * limit; at 600 a minute and more that is under 5 %, and below it every budget stays exact at
 * both ends (today's tiers: 60, 120 and 240 a minute never lease).
 */
const MIN_UNITS_PER_SPAN = 10;

/** A budget's units this gateway took from Redis ahead of its requests. */
interface Lease {
  /** The member name of the lease's units in Redis: `<member>:1..units`. */
  member: string;
  units: number;
  /** Units handed to requests so far. */
  used: number;
  /** Units may be handed out strictly before this time (this process's clock). */
  until: number;
  /** The budget's limit the lease was granted under (a tier change starts afresh). */
  limit: number;
  /** Units Redis had left for everyone once the lease was counted. */
  remaining: number;
  /** When the budget's oldest counted unit leaves the window (this process's clock). */
  resetAt: number;
}

/** A budget's requests at this gateway in the current span and the one before (its demand). */
interface Demand {
  spanStart: number;
  count: number;
  previous: number;
}

/** What a request taking a leased unit is told (RateLimitDecision's fields). */
export interface LeasedUnit {
  remaining: number;
  resetSeconds: number;
}

/** Units of an ended lease that no request took: to give back to Redis and the ledger. */
export interface Leftover {
  member: string;
  /** Units the lease keeps (those handed out): `<member>:used+1..units` go back. */
  used: number;
  units: number;
}

/**
 * Admissions in batches (issue 64): a budget that this gateway admits many requests of a
 * second takes units from Redis a few at a time, in the same script call as one request's
 * own unit, and hands them to its next requests without a Redis call. The walk's profiles put
 * the split's remaining CPU above the monolith's in the loopback writes each page makes, the
 * rate-limit call the first of them (BENCHMARKS.md); this removes most of those calls where a
 * budget is busy, and none of the promise (SECURITY.md, "Rate limits"):
 *
 * - Redis counts a lease's units from the end of its span (LEASE_SPAN_MS after its call was
 *   sent), and the gateway hands them out only before then. Every unit is therefore counted in
 *   Redis from its grant until at least 60 s after its use: any 60-second window that holds
 *   a use was seen whole by the grant decided last within it, which admitted only what fit
 *   under the limit. The exact bound across gateways holds as before.
 * - A lease is granted only while the budget keeps half its limit free after it (the script's
 *   reserve), so in a budget's second half every request is decided by Redis alone and no
 *   gateway sits on units another is refused for; a request refused while its gateway holds
 *   a lease takes a unit of it; units a lease did not hand out are given back when it ends.
 * - One call asking for a lease is out per budget at a time: the budget's requests arriving
 *   meanwhile wait for it and take its units, and one it did not serve asks for its own.
 * - Only budgets of at least 600 a minute lease (MIN_UNITS_PER_SPAN), sized by the budget's
 *   demand at this gateway in the previous span and never above the budget's own rate over a
 *   span (limit x span / 60 s, less the request's own unit), nor MAX_LEASE.
 * - Every leased unit is in the admission ledger like any admission (at the end of its span),
 *   so the fallback counts it and a Redis that restarted empty gets it back.
 */
export class AdmissionLeases {
  private readonly leases: LRUCache<string, Lease>;
  private readonly demand: LRUCache<string, Demand>;

  constructor(opts: { maxKeys: number }) {
    this.leases = growingLru(opts.maxKeys);
    this.demand = growingLru(opts.maxKeys);
  }

  /**
   * A leased unit for a request of `key` (counted first with `note`) when a live lease of this
   * limit has one left; undefined when the request must go to Redis.
   */
  take(key: string, limit: number, now: number): LeasedUnit | undefined {
    const lease = this.live(key, limit, now);
    if (!lease) return undefined;
    lease.used += 1;
    return {
      remaining: lease.remaining + lease.units - lease.used,
      resetSeconds: toSeconds(Math.max(0, lease.resetAt - now)),
    };
  }

  /**
   * Units a request going to Redis should ask for beyond its own `cost` (0: no lease): the
   * requests the budget had here in a span, less this one, within the caps. Call after take.
   */
  want(key: string, limit: number, cost: number, now: number): number {
    // a live lease with units left is kept: a request that calls anyway (to read a key
    // along) does not replace it
    if (cost !== 1 || this.live(key, limit, now)) return 0;
    const perSpan = Math.floor((limit * LEASE_SPAN_MS) / 60_000);
    if (perSpan < MIN_UNITS_PER_SPAN) return 0;
    const demand = this.demand.get(key);
    const recent = demand === undefined ? 0 : Math.max(demand.previous, demand.count) - 1;
    return Math.max(0, Math.min(MAX_LEASE, perSpan - 1, recent));
  }

  /**
   * Keeps the lease a call was granted (`units` > 0), sent at `sentAt`; returns the ended
   * lease's units no request took, if any, to give back.
   */
  granted(
    key: string,
    lease: { member: string; units: number; limit: number; remaining: number; resetMs: number },
    sentAt: number,
    now: number,
  ): Leftover | undefined {
    if (lease.units <= 0) return undefined;
    const leftover = this.end(key);
    this.leases.set(key, {
      member: lease.member,
      units: lease.units,
      used: 0,
      until: sentAt + LEASE_SPAN_MS,
      limit: lease.limit,
      remaining: lease.remaining,
      resetAt: now + lease.resetMs,
    });
    return leftover;
  }

  /**
   * Ends `key`'s lease when it can no longer hand out a unit under `limit` at `now` (its span
   * passed, or the limit changed): what is left of it, to give back before the budget's next
   * call is decided (near the limit no new lease replaces it).
   */
  endIfSpent(key: string, limit: number, now: number): Leftover | undefined {
    return this.leases.has(key) && !this.live(key, limit, now) ? this.end(key) : undefined;
  }

  /** Ends `key`'s lease (Redis lost its state, or a new lease replaces it): what is left of it. */
  end(key: string): Leftover | undefined {
    const lease = this.leases.get(key);
    if (!lease) return undefined;
    this.leases.delete(key);
    return lease.used < lease.units
      ? { member: lease.member, used: lease.used, units: lease.units }
      : undefined;
  }

  /** `key`'s lease while it may hand out a unit under `limit` at `now`. */
  private live(key: string, limit: number, now: number): Lease | undefined {
    const lease = this.leases.get(key);
    return lease && lease.limit === limit && lease.used < lease.units && now < lease.until
      ? lease
      : undefined;
  }

  /** Counts a request of `key` in its budget's current span (its demand), rolling spans. */
  note(key: string, now: number): void {
    const demand = this.demand.get(key);
    if (!demand) {
      this.demand.set(key, { spanStart: now, count: 1, previous: 0 });
      return;
    }
    if (now - demand.spanStart >= LEASE_SPAN_MS) {
      demand.previous = now - demand.spanStart < 2 * LEASE_SPAN_MS ? demand.count : 0;
      demand.spanStart = now;
      demand.count = 0;
    }
    demand.count += 1;
  }
}
