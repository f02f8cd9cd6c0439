import { randomBytes } from 'node:crypto';
import type { RecordUsageRequest } from '@brand/proto/access/v1/usage';
import type { Logger } from '@brand/shared/logger';
import type { UsageBuffer } from './usageBuffer';

type Batch = Pick<RecordUsageRequest, 'counts' | 'requests' | 'batch_id'>;

export interface UsageFlusherDeps {
  buffer: UsageBuffer;
  /** One batched call to records (UsageService.RecordUsage). */
  send: (batch: Batch) => Promise<void>;
  log: Logger;
  intervalMs: number;
  /** Attempts of one batch before it is dropped (counted in usage_dropped_total). */
  maxAttempts: number;
  /** Told of every flush (ok or failed) and of what a dropped batch held. */
  onFlush?: (outcome: 'ok' | 'failed') => void;
  onDropBatch?: (counts: number, logEntries: number) => void;
}

/**
 * Sends the buffer to records every `intervalMs` in one call, off the request path. A failed
 * batch is sent again (same batch id: records stores it once) at the next ticks, up to
 * `maxAttempts`, while new counts keep collecting in the bounded buffer; then it is dropped and
 * counted. stop() flushes what is held (SIGTERM), so a restart loses nothing; a crash loses
 * at most the counts of one interval (plus a batch being retried).
 */
export class UsageFlusher {
  private timer: NodeJS.Timeout | undefined;
  private pending: { batch: Batch; attempts: number } | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(private readonly deps: UsageFlusherDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** One flush: the batch being retried, if any, then what the buffer holds. */
  flush(): Promise<void> {
    this.inFlight ??= this.flushOnce().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Stops the timer and flushes what is held (one attempt for each batch). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.inFlight;
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    if (this.pending && !(await this.send(this.pending))) return;
    const { counts, requests } = this.deps.buffer.drain();
    if (counts.length === 0 && requests.length === 0) return;
    await this.send({ batch: { counts, requests, batch_id: batchId() }, attempts: 0 });
  }

  /** Sends one batch; true when it is stored or given up on, false to try again later. */
  private async send(entry: { batch: Batch; attempts: number }): Promise<boolean> {
    try {
      await this.deps.send(entry.batch);
      this.pending = undefined;
      this.deps.onFlush?.('ok');
      return true;
    } catch (err) {
      this.deps.onFlush?.('failed');
      entry.attempts += 1;
      if (entry.attempts >= this.deps.maxAttempts) {
        this.pending = undefined;
        this.deps.onDropBatch?.(
          entry.batch.counts.reduce((n, c) => n + c.count, 0),
          entry.batch.requests.length,
        );
        this.deps.log.warn(
          { err, attempts: entry.attempts },
          'usage flush failed; the batch is dropped',
        );
        return true;
      }
      this.pending = entry;
      this.deps.log.warn({ err, attempts: entry.attempts }, 'usage flush failed; retried later');
      return false;
    }
  }
}

function batchId(): string {
  return randomBytes(16).toString('base64url');
}
