import {
  analyzeChangedPartitions,
  dropTimePartitionsBefore,
  ensureTimePartitions,
  type TimePartitionedTable,
  type Pool,
} from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';

/** The outbox, one partition per UTC day (migrations/0013_outbox_by_day.sql). */
const OUTBOX: TimePartitionedTable = { schema: 'records', table: 'outbox' };

/** Days of partitions made ahead: a keeper down this long still loses no insert (the default catches more). */
const DAYS_AHEAD = 7;
/** Published rows one statement deletes from the default partition at most. */
const DEFAULT_BATCH = 5_000;

export interface OutboxRetention {
  /** OUTBOX_RETENTION_MS: how long a published event is kept. */
  retentionMs: number;
}

/**
 * One pass of the outbox's upkeep: the day partitions of yesterday to a week ahead exist;
 * day partitions wholly older than the retention are dropped (a whole day at once: no mass
 * DELETE, nothing for vacuum), except one that still holds an unpublished event, which waits
 * for the relay (nothing accepted is ever lost); and published rows past the retention that
 * landed in the default partition are deleted in batches; partitions that changed much since
 * their last analyze are analyzed, as autovacuum would. Every statement is safe to run
 * from several replicas at once. Returns what it did.
 */
export async function keepOutboxPartitions(
  pool: Pool,
  r: OutboxRetention,
  now = new Date(),
): Promise<{
  created: string[];
  dropped: string[];
  keptUnpublished: string[];
  defaultRows: number;
  /** Partitions given fresh planner statistics (analyzeChangedPartitions): the relay's claim. */
  analyzed: string[];
}> {
  const { created } = await ensureTimePartitions(pool, OUTBOX, { now, daysAhead: DAYS_AHEAD });
  const before = new Date(now.getTime() - r.retentionMs);
  const keptUnpublished: string[] = [];
  const dropped = await dropTimePartitionsBefore(pool, OUTBOX, before, async (partition) => {
    const res = await pool.query(
      `select 1 from records.${partition} where published_at is null limit 1`,
    );
    if (res.rowCount === 0) return false;
    keptUnpublished.push(partition);
    return true;
  });
  let defaultRows = 0;
  for (;;) {
    const res = await pool.query(
      `delete from records.outbox_default where ctid = any(array(
         select ctid from records.outbox_default
         where published_at is not null and created_at < $1 limit ${DEFAULT_BATCH}))`,
      [before],
    );
    defaultRows += res.rowCount ?? 0;
    if ((res.rowCount ?? 0) < DEFAULT_BATCH) break;
  }
  const analyzed = await analyzeChangedPartitions(pool, OUTBOX);
  return { created, dropped, keptUnpublished, defaultRows, analyzed };
}

/**
 * Runs keepOutboxPartitions at once and then every `intervalMs` until stopped; a failed pass
 * (the database away) is logged and the next one tries again.
 */
export function startOutboxPartitionKeeper(
  pool: Pool,
  log: Logger,
  r: OutboxRetention & { intervalMs: number },
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async (): Promise<void> => {
    try {
      const done = await keepOutboxPartitions(pool, r);
      if (done.created.length + done.dropped.length + done.defaultRows > 0)
        log.info(done, 'outbox partitions kept');
      if (done.keptUnpublished.length > 0)
        log.warn(
          { partitions: done.keptUnpublished },
          'outbox days past their retention still hold unpublished events; kept until the relay publishes them',
        );
    } catch (err) {
      log.warn({ err }, 'outbox partition upkeep failed; the next pass tries again');
    }
  };
  const loop = (): void => {
    running = pass().finally(() => {
      if (!stopped) {
        timer = setTimeout(loop, r.intervalMs);
        timer.unref();
      }
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
