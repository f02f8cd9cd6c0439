import {
  analyzeChangedPartitions,
  dropTimePartitionsBefore,
  ensureTimePartitions,
  listTimePartitions,
  type TimePartitionedTable,
  type Pool,
} from '@brand/shared/db';
import { expireFeedThrough } from '../feed/feedRepo';

/**
 * The delivery history, one partition per 7 UTC days of the event's time
 * (migrations/0012_history_by_week.sql): detail first, so a week goes from the tables that
 * name its deliveries before the deliveries and their events themselves.
 */
const week = (table: string): TimePartitionedTable => ({ schema: 'webhooks', table, days: 7 });
const DETAILS = week('attempt_details');
const ATTEMPTS = week('attempts');
/**
 * Deliveries are updated in place twice (the claim's lease, the outcome): pages keep a fifth
 * free so the lease's update is HOT (migrations/0013_deliveries_fillfactor.sql).
 */
const DELIVERIES: TimePartitionedTable = { ...week('deliveries'), fillfactor: 80 };
const EVENTS = week('events');
const HISTORY = [DETAILS, ATTEMPTS, DELIVERIES, EVENTS] as const;

/** Days of partitions made ahead: a keeper down this long still sends nothing to the default. */
const DAYS_AHEAD = 7;

export interface HistoryRetention {
  /** DELIVERY_HISTORY_RETENTION_MS: events, deliveries and attempts, after the event. */
  historyMs: number;
  /** ATTEMPT_DETAIL_RETENTION_MS: what each attempt sent and got back, after the event. */
  detailMs: number;
  /** SWEEP_BATCH_SIZE: rows one delete of a default partition takes at most. */
  batchSize: number;
}

export interface HistoryPass {
  created: string[];
  dropped: string[];
  /** Weeks past the retention kept because a delivery of theirs is still pending. */
  keptPending: string[];
  /** Rows past their retention deleted from the default partitions. */
  defaultRows: number;
  /** Partitions given fresh planner statistics (analyzeChangedPartitions). */
  analyzed: string[];
}

const dayOf = (partition: string): string => partition.slice(-8);

/**
 * One pass of the history's upkeep, safe from several replicas at once:
 * - every history table has its week partitions from yesterday to a week ahead;
 * - a week wholly older than the history retention is dropped from all four tables, unless a
 *   delivery of that week is still pending (it waits for its last retry: nothing accepted is
 *   lost), and attempt detail goes a week at a time after its own, shorter retention;
 * - rows that landed in a default partition (an event older than the partitions, or the
 *   keeper down for a week) are deleted past the same retentions in bounded batches, pending
 *   deliveries and their events excepted;
 * - partitions whose rows changed much since their last analyze are analyzed, as autovacuum
 *   would (the claim's plans depend on it; the test machines run without autovacuum).
 */
export async function keepHistoryPartitions(
  pool: Pool,
  r: HistoryRetention,
  now = new Date(),
): Promise<HistoryPass> {
  const created: string[] = [];
  for (const t of HISTORY)
    created.push(...(await ensureTimePartitions(pool, t, { now, daysAhead: DAYS_AHEAD })).created);

  const historyBefore = new Date(now.getTime() - r.historyMs);
  const detailBefore = new Date(now.getTime() - Math.min(r.detailMs, r.historyMs));
  const keptPending: string[] = [];
  for (const p of await listTimePartitions(pool, DELIVERIES)) {
    if (p.to.getTime() > historyBefore.getTime()) break;
    const pending = await pool.query(
      `select 1 from webhooks.${p.name} where status = 'pending' limit 1`,
    );
    if ((pending.rowCount ?? 0) > 0) keptPending.push(dayOf(p.name));
  }
  const kept = new Set(keptPending);
  const dropped = await dropTimePartitionsBefore(pool, DETAILS, detailBefore);
  for (const t of HISTORY)
    dropped.push(
      ...(await dropTimePartitionsBefore(pool, t, historyBefore, async (name) => {
        if (kept.has(dayOf(name))) return true;
        // the events feed's cursors into this week expire before it goes (feedRepo.ts)
        if (t === EVENTS) await expireFeedThrough(pool, name);
        return false;
      })),
    );

  const defaultRows = await sweepDefaults(pool, r.batchSize, historyBefore, detailBefore);
  const analyzed: string[] = [];
  for (const t of HISTORY) analyzed.push(...(await analyzeChangedPartitions(pool, t)));
  return { created, dropped, keptPending, defaultRows, analyzed };
}

/** The default partitions' rows past their retention, a batch per statement. */
async function sweepDefaults(
  pool: Pool,
  batchSize: number,
  historyBefore: Date,
  detailBefore: Date,
): Promise<number> {
  // each default partition, with what of it is past its retention
  const sweeps: Array<{ table: string; past: string; before: Date }> = [
    { table: 'attempt_details_default', past: 'event_at < $1', before: detailBefore },
    {
      table: 'attempts_default',
      past: `event_at < $1 and not exists (
         select 1 from webhooks.deliveries_default d
         where d.id = attempts_default.delivery_id and d.event_at = attempts_default.event_at
           and d.status = 'pending')`,
      before: historyBefore,
    },
    {
      table: 'deliveries_default',
      past: `event_at < $1 and status <> 'pending'`,
      before: historyBefore,
    },
    {
      table: 'events_default',
      past: `created_at < $1 and not exists (
         select 1 from webhooks.deliveries_default d
         where d.event_id = events_default.id and d.event_at = events_default.created_at
           and d.status = 'pending')`,
      before: historyBefore,
    },
  ];
  let total = 0;
  for (const { table, past, before } of sweeps) {
    if (table === 'events_default') await expireFeedThrough(pool, table, { where: past, before });
    for (;;) {
      const res = await pool.query(
        `delete from webhooks.${table} where ctid = any(array(
           select ctid from webhooks.${table} where ${past} limit ${batchSize}))`,
        [before],
      );
      total += res.rowCount ?? 0;
      if ((res.rowCount ?? 0) < batchSize) break;
    }
  }
  return total;
}
