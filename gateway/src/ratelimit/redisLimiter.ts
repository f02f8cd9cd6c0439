import { writeAtEndOfTurn, type Redis } from '@brand/shared/redis';
import type { AdmissionLedger } from './admissionLedger';
import { AdmissionLeases, LEASE_SPAN_MS, type Leftover } from './admissionLeases';
import { WINDOW_SECONDS, type ProbedRateLimiter, type RateLimitDecision } from './limiter';
import { PeekedValues } from './peekedValues';
import { SLIDING_WINDOW_LUA } from './slidingWindowScript';
import { toSeconds } from './seconds';

/**
 * allowed, remaining, reset_us, retry_us, the epoch when it is not the one sent (else null),
 * the values of the keys read along (null when none was named; each null when absent), and
 * the lease's units.
 */
type SlidingWindowResult = [
  number,
  number,
  number,
  number,
  string | null,
  Array<string | null> | null,
  number,
];

interface SlidingWindowRedis extends Redis {
  slidingWindow(
    key: string,
    epochKey: string,
    ...args: Array<string | number>
  ): Promise<SlidingWindowResult>;
  /** The same script with keys read along: the number of keys first. */
  slidingWindowPeeks(
    numKeys: number,
    ...keysThenArgs: Array<string | number>
  ): Promise<SlidingWindowResult>;
}

/** The script's answer when Redis's epoch is not the caller's and the call carried no units. */
const EPOCH_CHANGED = -1;

/** What one call asks: a budget's units, and what it reads along. */
interface Call {
  key: string;
  limit: number;
  cost: number;
  /** The request's own key to read along, if any (the value it is answered with). */
  peekKey: string | undefined;
  now: number;
}

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
 *
 * A busy budget takes a few units ahead in the same call (admissionLeases.ts, issue 64), and
 * its next requests within the lease's span take those without a call; while a call asking
 * for a lease is out, the budget's other requests wait for it rather than call too. The
 * values read along (a list's change version) come with the lease call, for every key the
 * budget's requests read lately (peekedValues.ts).
 */
export class RedisSlidingWindowLimiter implements ProbedRateLimiter {
  private readonly redis: SlidingWindowRedis;
  /** The epoch this instance last saw; undefined until the first answer. */
  private epoch: string | undefined;
  /**
   * Counts connections to Redis: a budget's units are known held only under the epoch and the
   * connection they were synced on. A Redis restarted from a snapshot keeps its epoch key but
   * not the units admitted after the snapshot, so the epoch alone did not tell (a review,
   * 2026-11-29): after each reconnection every budget puts its units back once (ZADD NX).
   */
  private connection = 0;
  private readonly leases = new AdmissionLeases({ maxKeys: 100_000 });
  private readonly peeks = new PeekedValues({ maxKeys: 100_000 });
  /** Each budget's call asking for a lease, while it is out. */
  private readonly leaseCalls = new Map<string, Promise<unknown>>();

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly ledger: AdmissionLedger,
    /** Called when Redis's epoch changes after the first (Redis lost its rate-limit state). */
    private readonly onStateLost: () => void = () => undefined,
  ) {
    if (!('slidingWindow' in redis))
      redis.defineCommand('slidingWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
    // the same script (one SHA) with the keys it reads along
    if (!('slidingWindowPeeks' in redis))
      redis.defineCommand('slidingWindowPeeks', { lua: SLIDING_WINDOW_LUA });
    this.redis = redis as SlidingWindowRedis;
    redis.on('ready', () => {
      this.connection += 1;
    });
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
    peekFresh = false,
  ): Promise<RateLimitDecision> {
    const now = this.ledger.now();
    this.leases.note(key, now);
    if (peekKey !== undefined) this.peeks.note(key, peekKey, now);
    const leasable = cost === 1 && !peekFresh;
    let waited = false;
    if (leasable) {
      const leased = this.fromLease(key, limit, peekKey, now);
      if (leased) return leased;
      // the budget's lease call is out: its units are for the requests waiting on it
      const out = this.leaseCalls.get(key);
      if (out) {
        waited = true;
        await out.catch(() => undefined);
        const after = this.fromLease(key, limit, peekKey, this.ledger.now());
        if (after) return after;
      }
    }
    // a spent lease's untaken units go back in the same write, ahead of the call
    this.giveBack(key, this.leases.endIfSpent(key, limit, now));
    const call = { key, limit, cost, peekKey, now };
    // one lease call out per budget: a request the last one did not serve asks for its own unit
    const want = leasable && !waited ? this.leases.want(key, limit, cost, now) : 0;
    const decided = this.decide(call, want);
    if (want > 0) this.leaseCalls.set(key, decided);
    let decision: RateLimitDecision;
    try {
      decision = await decided;
    } finally {
      if (this.leaseCalls.get(key) === decided) this.leaseCalls.delete(key);
    }
    // refused while a lease this gateway took meanwhile has a unit left: that unit is this
    // request's (Redis counted it already), so no unit a lease took sits unused beside a refusal
    if (!decision.allowed && leasable)
      return this.fromLease(key, limit, peekKey, this.ledger.now()) ?? decision;
    return decision;
  }

  /** One script call (two when it finds a new epoch unannounced), asking for `want` units more. */
  private async decide(c: Call, want: number): Promise<RateLimitDecision> {
    const { key, limit, cost, peekKey } = c;
    // a lease call reads every key the budget's requests read lately, for the requests it serves
    const reads = this.peeks.toRead(key, peekKey, c.now, want > 0);
    // At most two calls: a call that carries the units is always decided.
    for (let call = 1; call <= 2; call++) {
      const sent = this.epoch;
      const connection = this.connection;
      const seeds = this.ledger.isSynced(key, this.syncMark(sent, connection))
        ? undefined
        : this.ledger.seeds(key);
      const member = this.ledger.mint();
      const leaseMember = want > 0 ? this.ledger.mint() : '';
      const args: Array<string | number> = [
        limit,
        WINDOW_SECONDS * 1000,
        cost,
        member,
        sent ?? '',
        seeds ? '1' : '0',
        want,
        leaseMember,
        LEASE_SPAN_MS,
      ];
      if (seeds) {
        for (const [i, m] of seeds.members.entries())
          args.push(m, Math.ceil(seeds.agesMs[i]! * 1000));
      }
      const sentAt = this.ledger.now();
      // with the other requests of this turn, in one write (writesPerTurn.ts)
      writeAtEndOfTurn(this.redis);
      const [allowed, remaining, resetUs, retryUs, news, peeked, leased] =
        reads.length === 0
          ? await this.redis.slidingWindow(this.storeKey(key), this.epochKey(), ...args)
          : await this.redis.slidingWindowPeeks(
              2 + reads.length,
              this.storeKey(key),
              this.epochKey(),
              ...reads.map((k) => `${this.keyPrefix}${k}`),
              ...args,
            );
      if (news !== null) this.adoptEpoch(news);
      if (allowed === EPOCH_CHANGED) continue; // the budget is now unsynced: the next call seeds it
      const answeredAt = this.ledger.now();
      if (allowed === 1 && cost > 0) this.ledger.record(key, member, cost, answeredAt, 'shared');
      if (leased > 0)
        this.ledger.record(key, leaseMember, leased, sentAt + LEASE_SPAN_MS, 'shared');
      // the seeds went to the epoch the script saw: the one sent unless it said otherwise
      if (seeds)
        this.ledger.markSynced(key, this.syncMark(news ?? sent, connection)!, seeds.version);
      if (reads.length > 0) this.peeks.read(reads, peeked ?? [], sentAt);
      if (allowed === 1) {
        const lease = {
          member: leaseMember,
          units: leased,
          limit,
          remaining,
          resetMs: resetUs / 1000,
        };
        this.giveBack(key, this.leases.granted(key, lease, sentAt, answeredAt));
      }
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, remaining + leased),
        resetSeconds: toSeconds(resetUs / 1000),
        retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, toSeconds(retryUs / 1000)),
        degraded: false,
        ...(allowed === 1 && cost > 0 ? { reservation: `${member}/${cost}` } : {}),
        ...(peekKey === undefined ? {} : { peeked: peeked?.[0] ?? null }),
      };
    }
    throw new Error('rate-limit script left the call undecided twice'); // the fallback decides
  }

  /**
   * One unit from the budget's lease, when it has one left and the request's key to read along
   * (if any) has a value a leased unit may use; undefined when the request must call Redis.
   */
  private fromLease(
    key: string,
    limit: number,
    peekKey: string | undefined,
    now: number,
  ): RateLimitDecision | undefined {
    const peeked = peekKey === undefined ? undefined : this.peeks.usable(peekKey, now);
    if (peekKey !== undefined && peeked === undefined) return undefined;
    const unit = this.leases.take(key, limit, now);
    if (!unit) return undefined;
    // no reservation: a refund of a leased unit is dropped, which errs on the strict side
    return {
      allowed: true,
      limit,
      remaining: unit.remaining,
      resetSeconds: unit.resetSeconds,
      retryAfterSeconds: 0,
      degraded: false,
      ...(peekKey === undefined ? {} : { peeked }),
    };
  }

  /** Gives an ended lease's units that no request took back to Redis and the ledger. */
  private giveBack(key: string, leftover: Leftover | undefined): void {
    if (!leftover) return;
    this.ledger.shrink(key, leftover.member, leftover.used);
    const members: string[] = [];
    for (let i = leftover.used + 1; i <= leftover.units; i++)
      members.push(`${leftover.member}:${i}`);
    writeAtEndOfTurn(this.redis);
    // best effort, as a refund: a unit that stays counted only errs on the strict side
    this.redis.zrem(this.storeKey(key), ...members).catch(() => undefined);
  }

  async refund(key: string, decision: RateLimitDecision): Promise<void> {
    const [member, cost] = (decision.reservation ?? '').split('/');
    if (!member || !cost) return;
    this.ledger.refund(key, member, Number(cost));
    const members = Array.from({ length: Number(cost) }, (_, i) => `${member}:${i + 1}`);
    await this.redis.zrem(this.storeKey(key), ...members);
  }

  // A lease granted by a Redis that then forgot it stays usable: its units are in the ledger,
  // which puts them back with the budget's next call, as every admission's (SECURITY.md).
  private adoptEpoch(epoch: string): void {
    const lost = this.epoch !== undefined;
    this.epoch = epoch;
    if (lost) this.onStateLost();
  }

  /** What a budget's sync is marked with: the epoch, and the connection it was seen on. */
  private syncMark(epoch: string | undefined, connection: number): string | undefined {
    return epoch === undefined ? undefined : `${epoch}#${connection}`;
  }

  private storeKey(key: string): string {
    return `${this.keyPrefix}rl:${key}`;
  }

  private epochKey(): string {
    return `${this.keyPrefix}rl-epoch`;
  }
}
