interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** SQLSTATE classes of an error that one row's data caused (22 data exception, 23 integrity). */
const ROW_ERROR = /^2[23]/;

/**
 * Writes items a batch at a time, as a group commit does: the first item is written at once
 * (or, while the caller is busy, after a few milliseconds of gathering: `gatherMs`), and those
 * that come while a write is in flight go together in the next one. At low load every batch is
 * one item and nothing waits; at volume a statement carries many. `add` settles when its item
 * is committed, with what the write returned for it (or failed: then nothing of it was
 * written, and the caller may try again).
 *
 * Two writers use it: the worker's successful attempts (at 1,000 deliveries a second a
 * statement carries tens, and each receiver's row and health bucket are written once per
 * statement instead of once per delivery), and the consumer's chunks of Kafka messages (the
 * partitions' batches that arrive while a transaction is in flight share the next one: over
 * thousands of brands, whose events fall in every partition, each fetch held one small batch
 * per partition, stored one transaction after another; issue 64, S10).
 *
 * A write fails as a whole. When the error is one a row's data caused (SQLSTATE class 22 or
 * 23), each item of that batch is written alone, so one bad row fails only its own item; any
 * other error (the database unreachable, a deadlock) fails the whole batch.
 */
export class GroupCommit<T, R = void> {
  private waiting: Array<Waiting<T, R>> = [];
  private writing = false;
  private gathering: NodeJS.Timeout | undefined;
  private turn: NodeJS.Immediate | undefined;

  constructor(
    /** Writes a batch; resolves with each item's result, in the items' order (or nothing). */
    private readonly write: (items: T[]) => Promise<readonly R[] | void>,
    private readonly opts: {
      /** Items a write carries at most. */
      maxBatch?: number;
      /**
       * Gathering, as PostgreSQL's commit_delay does: while `busy()` says many items are
       * coming, the first waits up to `gatherMs` for `gatherTarget` others before the write
       * starts, instead of going alone and leaving the rest to the next one. Idle, nothing
       * waits.
       */
      gatherMs?: number;
      gatherTarget?: number;
      busy?: () => boolean;
      /**
       * The first item waits for the end of the event loop's turn, so that the items added in
       * the same turn go together (the partitions' batches of one Kafka fetch are handed out
       * at once): without it the first goes alone and the rest wait for it.
       */
      sameTurn?: boolean;
    } = {},
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.writing) return;
      const { gatherMs = 0, gatherTarget = Infinity, busy } = this.opts;
      if (this.gathering) {
        if (this.waiting.length >= gatherTarget) this.startDrain();
      } else if (gatherMs > 0 && busy?.() && this.waiting.length < gatherTarget) {
        this.gathering = setTimeout(() => this.startDrain(), gatherMs);
      } else if (this.opts.sameTurn) {
        this.turn ??= setImmediate(() => this.startDrain());
      } else this.startDrain();
    });
  }

  private startDrain(): void {
    clearTimeout(this.gathering);
    clearImmediate(this.turn);
    this.gathering = undefined;
    this.turn = undefined;
    void this.drain();
  }

  private async drain(): Promise<void> {
    const maxBatch = this.opts.maxBatch ?? 200;
    this.writing = true;
    try {
      while (this.waiting.length > 0) await this.writeBatch(this.waiting.splice(0, maxBatch));
    } finally {
      this.writing = false;
    }
  }

  private async writeBatch(batch: Array<Waiting<T, R>>): Promise<void> {
    try {
      const results = await this.write(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results?.[i] as R));
    } catch (err) {
      if (batch.length === 1 || !isRowError(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      for (const w of batch) await this.writeBatch([w]);
    }
  }
}

function isRowError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ROW_ERROR.test(code);
}
