import type { AttemptRecord } from './attemptRepo';

interface Waiting {
  attempt: AttemptRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** SQLSTATE classes of an error that one row's data caused (22 data exception, 23 integrity). */
const ROW_ERROR = /^2[23]/;

/**
 * Records successful attempts a batch at a time, as a group commit does: the first success
 * is written at once (or, while the worker is busy, after a few milliseconds of gathering:
 * `gatherMs`), and those that come while a write is in flight go together in the next one.
 * At low load every batch is one attempt and nothing waits; at 1,000 deliveries a second a
 * statement carries tens, and each receiver's row and health bucket are written
 * once per statement instead of once per delivery. `record` settles when its attempt is
 * committed (or failed: then nothing of it was written, and the caller may try again).
 *
 * A statement fails as a whole. When the error is one a row's data caused (SQLSTATE class 22
 * or 23), each attempt of that batch is written alone, so one bad row fails only itself;
 * any other error (the database unreachable, a deadlock) fails the whole batch.
 */
export class SuccessBatcher {
  private waiting: Waiting[] = [];
  private writing = false;
  private gathering: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (attempts: AttemptRecord[]) => Promise<void>,
    private readonly opts: {
      maxBatch?: number;
      /**
       * Gathering, as PostgreSQL's commit_delay does: while `busy()` says many answers are
       * coming (the worker's attempts in flight), the first success waits up to `gatherMs`
       * for `gatherTarget` others before the statement is written, instead of going alone
       * and leaving the rest to the next one. Idle, nothing waits.
       */
      gatherMs?: number;
      gatherTarget?: number;
      busy?: () => boolean;
    } = {},
  ) {}

  record(attempt: AttemptRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ attempt, resolve, reject });
      if (this.writing) return;
      const { gatherMs = 0, gatherTarget = Infinity, busy } = this.opts;
      if (this.gathering) {
        if (this.waiting.length >= gatherTarget) this.startDrain();
      } else if (gatherMs > 0 && busy?.() && this.waiting.length < gatherTarget) {
        this.gathering = setTimeout(() => this.startDrain(), gatherMs);
      } else this.startDrain();
    });
  }

  private startDrain(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
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

  private async writeBatch(batch: Waiting[]): Promise<void> {
    try {
      await this.write(batch.map((w) => w.attempt));
      for (const w of batch) w.resolve();
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
