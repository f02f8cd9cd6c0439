import { randomBytes } from 'node:crypto';
import type { RecordUsageRequest } from '@brand/proto/access/v1/usage';
import { isAppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import type { UsageBuffer } from './usageBuffer';

type Batch = Pick<RecordUsageRequest, 'counts' | 'requests' | 'batch_id'>;

/**
 * How long a batch records did not take is kept and sent again: well inside the day records
 * remembers batch ids for (usage_batches), so a batch stored by an attempt whose answer was
 * lost is never stored twice.
 */
export const USAGE_BATCH_RETAIN_MS = 12 * 3_600_000;

export interface UsageFlusherDeps {
  buffer: UsageBuffer;
  /** One batched call to records (UsageService.RecordUsage). */
  send: (batch: Batch) => Promise<void>;
  log: Logger;
  intervalMs: number;
  /**
   * Failed attempts of one batch after which each further failure is logged as an error
   * (USAGE_FLUSH_MAX_ATTEMPTS). The batch is kept either way.
   */
  maxAttempts: number;
  /** How long a failed batch is kept and retried (USAGE_BATCH_RETAIN_MS). */
  retainMs?: number;
  now?: () => number;
  /** Told of every flush (ok or failed) and of what a dropped batch held. */
  onFlush?: (outcome: 'ok' | 'failed') => void;
  onDropBatch?: (counts: number, logEntries: number) => void;
}

/**
 * Sends the buffer to records every `intervalMs` in one call, off the request path. A batch
 * records did not take is kept and sent again first at every next tick, under the same batch
 * id (records stores it once), while new counts keep collecting in the bounded buffer: at
 * most one kept batch and one buffer's worth, so memory stays within twice the buffer's
 * bounds. A kept batch is dropped (and counted) only when records rejects it as invalid,
 * which no retry can mend, or once it is older than `retainMs` (12 hours). stop() flushes
 * what is held (SIGTERM), so a restart loses nothing while records is up; a crash loses at
 * most the counts of one interval plus a batch being retried.
 */
export class UsageFlusher {
  private timer: NodeJS.Timeout | undefined;
  private pending: { batch: Batch; attempts: number; since: number } | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: UsageFlusherDeps) {
    this.now = deps.now ?? Date.now;
  }

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
    const drops = this.deps.buffer.takeDrops();
    if (drops)
      this.deps.log.warn(
        drops,
        'usage counting dropped counts or request-log entries (usage_dropped_total)',
      );
    if (counts.length === 0 && requests.length === 0) return;
    await this.send({
      batch: { counts, requests, batch_id: batchId() },
      attempts: 0,
      since: this.now(),
    });
  }

  /** Sends one batch; true when it is stored or given up on, false to try again later. */
  private async send(entry: { batch: Batch; attempts: number; since: number }): Promise<boolean> {
    try {
      await this.deps.send(entry.batch);
      this.pending = undefined;
      this.deps.onFlush?.('ok');
      return true;
    } catch (err) {
      this.deps.onFlush?.('failed');
      entry.attempts += 1;
      const rejected =
        isAppError(err) && (err.code === 'validation_failed' || err.code === 'invalid_parameter');
      const expired = this.now() - entry.since >= (this.deps.retainMs ?? USAGE_BATCH_RETAIN_MS);
      if (rejected || expired) {
        this.pending = undefined;
        this.deps.onDropBatch?.(
          entry.batch.counts.reduce((n, c) => n + c.count, 0),
          entry.batch.requests.length,
        );
        this.deps.log.error(
          { err, attempts: entry.attempts, brands: brandsOf(entry.batch) },
          rejected
            ? 'records rejected a usage batch; it is dropped'
            : 'usage flush failed for too long; the batch is dropped',
        );
        return true;
      }
      this.pending = entry;
      const fields = { err, attempts: entry.attempts };
      if (entry.attempts >= this.deps.maxAttempts)
        this.deps.log.error(fields, 'usage flush failed; the batch is kept and retried');
      else this.deps.log.warn(fields, 'usage flush failed; retried later');
      return false;
    }
  }
}

/** Up to 20 of the brands a batch names (a dropped batch's log line says whose it was). */
function brandsOf(batch: Batch): string[] {
  const brands = new Set<string>();
  for (const x of [...batch.requests, ...batch.counts]) {
    const brand = x.brand_id || x.address_brand_id;
    if (brand !== '') brands.add(brand);
    if (brands.size >= 20) break;
  }
  return [...brands];
}

function batchId(): string {
  return randomBytes(16).toString('base64url');
}
