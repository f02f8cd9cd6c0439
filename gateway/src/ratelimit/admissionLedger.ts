import type { LRUCache } from 'lru-cache';
import { growingLru } from './growingLru';
import { randomBase62 } from '@brand/shared/ids';
import { WINDOW_SECONDS } from './limiter';

/**
 * One budget's admissions by this instance in the current window, oldest first: one entry per
 * admission (a reservation of `cost` units), in three parallel arrays of numbers, so a busy
 * budget costs about 24 bytes an admission. (An entry per unit, each with its member name as a
 * string, took about 90: a benchmark gateway admitting 10,000 requests a second held 600,000 of
 * them, 50 MB of its heap; BENCHMARKS.md, issue 25.)
 */
interface BudgetEntries {
  /**
   * Admission times (ms, this process's clock), ascending; those before `head` have expired.
   * A lease's units (admissionLeases.ts) count from the end of its span, a time ahead of now.
   */
  at: number[];
  /**
   * Each admission's member name (its units are `<member>:1..cost` in Redis): the sequence
   * number alone for a name this ledger minted (`<instance>:<sequence>`), else the name.
   */
  members: (number | string)[];
  /** Each admission's units. */
  costs: number[];
  /** Index of the oldest admission still in the window (expired ones are dropped in batches). */
  head: number;
  /** The Redis epoch under which Redis is known to hold every unit above; undefined: not known. */
  syncedEpoch: string | undefined;
  /** Counts admissions Redis was not told of (fallback decisions), so a stale sync mark is ignored. */
  version: number;
}

/** A budget's units as Redis re-seeding needs them: member names and ages in milliseconds. */
export interface LedgerSeeds {
  members: string[];
  agesMs: number[];
  /** Pass back to markSynced: the mark is kept only if no local admission happened since. */
  version: number;
}

/**
 * What this gateway instance admitted, per budget, in the current sliding window (issue 19).
 * Redis is the shared count, but Redis can be unreachable (the fallback then decides from
 * this ledger, not from an empty window) or restarted empty (the Redis limiter then puts
 * these units back before admitting more). Every admission is recorded here, whichever
 * store decided it, under the member name it has (or would have) in Redis, so putting it
 * back is idempotent.
 *
 * Bounded: an LRU over `maxKeys` budgets; within one, entries older than the window are
 * dropped whenever the budget is touched, so a budget holds at most what the instance
 * admitted in one window, an entry per admission. Client addresses' budgets (`addr:…`) have an
 * LRU of their own: in one shared LRU, requests from 100,000 new addresses (refusals cost
 * nothing to send) evicted every brand's admissions, and a Redis restart or outage then let the
 * brand spend its window again (a review, 2026-11-29).
 */
export class AdmissionLedger {
  private readonly budgets: LRUCache<string, BudgetEntries>;
  private readonly addressBudgets: LRUCache<string, BudgetEntries>;
  private readonly windowMs = WINDOW_SECONDS * 1000;
  private readonly instance = randomBase62(8);
  private sequence = 0;
  readonly now: () => number;

  constructor(opts: { maxKeys: number; now?: () => number }) {
    this.budgets = growingLru(opts.maxKeys);
    this.addressBudgets = growingLru(opts.maxKeys);
    this.now = opts.now ?? (() => performance.timeOrigin + performance.now());
  }

  /** A member prefix unique across instances and calls: units are `<prefix>:1..cost`. */
  mint(): string {
    this.sequence = (this.sequence + 1) % 1e9;
    return `${this.instance}:${this.sequence}`;
  }

  /** The LRU a budget lives in: a client address's, or a brand's (and any other). */
  private lruOf(key: string): LRUCache<string, BudgetEntries> {
    return key.startsWith('addr:') ? this.addressBudgets : this.budgets;
  }

  /** Admission times of `key`'s units in the window ending now, oldest first (the fallback's view). */
  times(key: string): number[] {
    const entries = this.live(key);
    const times: number[] = [];
    if (!entries) return times;
    for (let i = entries.head; i < entries.at.length; i++)
      for (let unit = 0; unit < entries.costs[i]!; unit++) times.push(entries.at[i]!);
    return times;
  }

  /**
   * Records `cost` units admitted under `member` at `at`. `shared`: Redis decided and holds
   * them; `local`: the fallback decided, and Redis must be told before it decides again. A
   * lease's units are recorded at the end of their span (ahead of admissions made since), so
   * an entry goes in after the last one not later than it: the times stay in order.
   */
  record(key: string, member: string, cost: number, at: number, how: 'shared' | 'local'): void {
    if (cost <= 0) return;
    // No pruning here (reads prune): this runs after every admission through Redis.
    const existing = this.lruOf(key).get(key);
    const entries = existing ?? {
      at: [],
      members: [],
      costs: [],
      head: 0,
      syncedEpoch: undefined,
      version: 0,
    };
    let i = entries.at.length;
    while (i > entries.head && entries.at[i - 1]! > at) i--;
    if (i === entries.at.length) {
      entries.at.push(at);
      entries.members.push(this.compact(member));
      entries.costs.push(cost);
    } else {
      entries.at.splice(i, 0, at);
      entries.members.splice(i, 0, this.compact(member));
      entries.costs.splice(i, 0, cost);
    }
    if (how === 'local') {
      entries.syncedEpoch = undefined;
      entries.version += 1;
    }
    // get() already made an existing budget the most recently used
    if (!existing) this.lruOf(key).set(key, entries);
  }

  /** Forgets the units of one reservation (a refund). */
  refund(key: string, member: string, cost: number): void {
    const entries = this.lruOf(key).get(key);
    if (!entries) return;
    const index = entries.members.lastIndexOf(this.compact(member));
    if (index < entries.head || entries.costs[index] !== cost) return;
    entries.at.splice(index, 1);
    entries.members.splice(index, 1);
    entries.costs.splice(index, 1);
  }

  /**
   * Keeps the first `cost` units of a reservation and forgets the rest (a lease's units that
   * were never handed to a request, given back to Redis).
   */
  shrink(key: string, member: string, cost: number): void {
    const entries = this.lruOf(key).get(key);
    if (!entries) return;
    const index = entries.members.lastIndexOf(this.compact(member));
    if (index < entries.head || entries.costs[index]! <= cost) return;
    if (cost > 0) {
      entries.costs[index] = cost;
      return;
    }
    entries.at.splice(index, 1);
    entries.members.splice(index, 1);
    entries.costs.splice(index, 1);
  }

  /** True when Redis, at `epoch`, is known to hold every unit of `key` this instance admitted. */
  isSynced(key: string, epoch: string | undefined): boolean {
    const entries = this.live(key);
    return epoch !== undefined && entries !== undefined && entries.syncedEpoch === epoch;
  }

  /**
   * Every unit of `key` in the window, with its age, for putting back into Redis. A lease's
   * units, counted from the end of their span, have a negative age until then (the script puts
   * them back at that time, ahead of its now).
   */
  seeds(key: string): LedgerSeeds {
    const entries = this.live(key);
    if (!entries) return { members: [], agesMs: [], version: 0 };
    const now = this.now();
    const members: string[] = [];
    const agesMs: number[] = [];
    for (let i = entries.head; i < entries.at.length; i++) {
      const stored = entries.members[i]!;
      const member = typeof stored === 'number' ? `${this.instance}:${stored}` : stored;
      const age = now - entries.at[i]!;
      for (let unit = 1; unit <= entries.costs[i]!; unit++) {
        members.push(`${member}:${unit}`);
        agesMs.push(age);
      }
    }
    return { members, agesMs, version: entries.version };
  }

  /** Notes that Redis at `epoch` holds the seeds taken at `version` (ignored if stale). */
  markSynced(key: string, epoch: string, version: number): void {
    const entries = this.live(key);
    if (entries && entries.version === version) entries.syncedEpoch = epoch;
  }

  /**
   * The budget's entries with those older than the window skipped; undefined when none is
   * left. Expired units are cut off in batches (once they are half the arrays), so a busy
   * budget (a scaled one in a benchmark holds 100,000s of units) costs O(1) per call.
   */
  private live(key: string): BudgetEntries | undefined {
    const entries = this.lruOf(key).get(key);
    if (!entries) return undefined;
    const horizon = this.now() - this.windowMs;
    while (entries.head < entries.at.length && entries.at[entries.head]! <= horizon) entries.head++;
    if (entries.head === entries.at.length) {
      this.lruOf(key).delete(key);
      return undefined;
    }
    if (entries.head >= 64 && entries.head * 2 >= entries.at.length) {
      entries.at.splice(0, entries.head);
      entries.members.splice(0, entries.head);
      entries.costs.splice(0, entries.head);
      entries.head = 0;
    }
    return entries;
  }

  /** How a member name is stored: the sequence number of a name this ledger minted, else the name. */
  private compact(member: string): number | string {
    const prefix = this.instance.length + 1;
    if (member.length <= prefix || !member.startsWith(this.instance) || member[prefix - 1] !== ':')
      return member;
    const sequence = Number(member.slice(prefix));
    return Number.isInteger(sequence) && String(sequence) === member.slice(prefix)
      ? sequence
      : member;
  }
}
