import { LRUCache } from 'lru-cache';
import { randomBase62 } from '@brand/shared/ids';
import { WINDOW_SECONDS } from './limiter';

/** One budget's admissions by this instance in the current window, oldest first. */
interface BudgetEntries {
  /** Admission times (ms, this process's clock), ascending; those before `head` have expired. */
  at: number[];
  /** The unit each time belongs to: the member name Redis holds it under. */
  members: string[];
  /** Index of the oldest unit still in the window (expired units are dropped in batches). */
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
 * admitted in one window.
 */
export class AdmissionLedger {
  private readonly budgets: LRUCache<string, BudgetEntries>;
  private readonly windowMs = WINDOW_SECONDS * 1000;
  private readonly instance = randomBase62(8);
  private sequence = 0;
  readonly now: () => number;

  constructor(opts: { maxKeys: number; now?: () => number }) {
    this.budgets = new LRUCache({ max: opts.maxKeys });
    this.now = opts.now ?? (() => performance.timeOrigin + performance.now());
  }

  /** A member prefix unique across instances and calls: units are `<prefix>:1..cost`. */
  mint(): string {
    this.sequence = (this.sequence + 1) % 1e9;
    return `${this.instance}:${this.sequence}`;
  }

  /** Admission times of `key` in the window ending now, oldest first (a copy: the fallback's view). */
  times(key: string): number[] {
    const entries = this.live(key);
    return entries ? entries.at.slice(entries.head) : [];
  }

  /**
   * Records `cost` units admitted under `member` at `at`. `shared`: Redis decided and holds
   * them; `local`: the fallback decided, and Redis must be told before it decides again.
   */
  record(key: string, member: string, cost: number, at: number, how: 'shared' | 'local'): void {
    if (cost <= 0) return;
    // No pruning here (reads prune): this runs after every admission through Redis.
    const existing = this.budgets.get(key);
    const entries = existing ?? {
      at: [],
      members: [],
      head: 0,
      syncedEpoch: undefined,
      version: 0,
    };
    for (let i = 1; i <= cost; i++) {
      entries.at.push(at);
      entries.members.push(`${member}:${i}`);
    }
    if (how === 'local') {
      entries.syncedEpoch = undefined;
      entries.version += 1;
    }
    // get() already made an existing budget the most recently used
    if (!existing) this.budgets.set(key, entries);
  }

  /** Forgets the units of one reservation (a refund). */
  refund(key: string, member: string, cost: number): void {
    const entries = this.budgets.get(key);
    if (!entries) return;
    for (let i = 1; i <= cost; i++) {
      const index = entries.members.lastIndexOf(`${member}:${i}`);
      if (index < entries.head) continue;
      entries.at.splice(index, 1);
      entries.members.splice(index, 1);
    }
  }

  /** True when Redis, at `epoch`, is known to hold every unit of `key` this instance admitted. */
  isSynced(key: string, epoch: string | undefined): boolean {
    const entries = this.live(key);
    return epoch !== undefined && entries !== undefined && entries.syncedEpoch === epoch;
  }

  /** Every unit of `key` in the window, with its age, for putting back into Redis. */
  seeds(key: string): LedgerSeeds {
    const entries = this.live(key);
    if (!entries) return { members: [], agesMs: [], version: 0 };
    const now = this.now();
    return {
      members: entries.members.slice(entries.head),
      agesMs: entries.at.slice(entries.head).map((t) => Math.max(0, now - t)),
      version: entries.version,
    };
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
    const entries = this.budgets.get(key);
    if (!entries) return undefined;
    const horizon = this.now() - this.windowMs;
    while (entries.head < entries.at.length && entries.at[entries.head]! <= horizon) entries.head++;
    if (entries.head === entries.at.length) {
      this.budgets.delete(key);
      return undefined;
    }
    if (entries.head >= 64 && entries.head * 2 >= entries.at.length) {
      entries.at.splice(0, entries.head);
      entries.members.splice(0, entries.head);
      entries.head = 0;
    }
    return entries;
  }
}
