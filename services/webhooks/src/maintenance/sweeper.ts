import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { failStrandedDeliveries } from '../receivers/receiverRepo';
import { applyDueSwitches } from '../receivers/rotationService';
import { keepHistoryPartitions, type HistoryPass } from './historyPartitions';
import { deleteBefore, type RetainedTable } from './retentionRepo';
import { deleteExpiredRequestEntries, REQUEST_ENTRY_RETENTION_MS } from '../audit/trailRetention';

const DAY_MS = 24 * 3600_000;
/** Health rollup rows outlive the 7-day window by a day. */
const HEALTH_RETENTION_MS = 8 * DAY_MS;
/** Disable notices (sent or given up) and recovery request ids are kept a week. */
const NOTICE_RETENTION_MS = 7 * DAY_MS;
const RECOVERY_RETENTION_MS = 7 * DAY_MS;
/** Batches one task deletes per pass at most, so a pass stays short; the next pass goes on. */
const BATCHES_PER_PASS = 10;

export interface SweepSettings {
  /** MAINTENANCE_INTERVAL_MS: how often a pass runs. */
  intervalMs: number;
  /** ATTEMPT_DETAIL_RETENTION_MS: how long what an attempt sent and got back is kept. */
  attemptDetailRetentionMs: number;
  /** DELIVERY_HISTORY_RETENTION_MS: how long events, deliveries and attempts are kept. */
  historyRetentionMs: number;
  /** SWEEP_BATCH_SIZE: rows per delete statement. */
  batchSize: number;
}

/** What one pass did, for logs and tests. */
interface SweepResult {
  switched: number;
  history: HistoryPass;
  health: number;
  notices: number;
  recoveries: number;
  /** Request entries of the audit trail past their 7 days that every stream was sent (issue 63). */
  requestEntries: number;
  /** Pending deliveries of disabled receivers that their disabling could not see, failed. */
  strandedFailed: number;
}

/** Deletes in batches until a batch comes back short or the pass's share is used up. */
async function inBatches(
  batchSize: number,
  del: (limit: number) => Promise<number>,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < BATCHES_PER_PASS; i++) {
    const n = await del(batchSize);
    total += n;
    if (n < batchSize) break;
  }
  return total;
}

/**
 * One maintenance pass: applies scheduled secret switches that came due (destroying the old
 * secrets), keeps the delivery history's week partitions (made ahead, dropped past their
 * retention), enforces the retentions of health buckets, notices and recovery ids in
 * bounded batches, and fails the deliveries a disabling could not see (failStrandedDeliveries).
 * Every statement is idempotent, so replicas may sweep at once (switches are taken with SKIP
 * LOCKED).
 */
async function sweepOnce(pool: Pool, s: SweepSettings, now = new Date()): Promise<SweepResult> {
  const before = (ms: number): Date => new Date(now.getTime() - ms);
  const switched = await applyDueSwitches(pool, s.batchSize);
  const retain = (table: RetainedTable, ms: number) =>
    inBatches(s.batchSize, (limit) => deleteBefore(pool, table, before(ms), limit));
  const history = await keepHistoryPartitions(
    pool,
    {
      historyMs: s.historyRetentionMs,
      detailMs: s.attemptDetailRetentionMs,
      batchSize: s.batchSize,
    },
    now,
  );
  const health = await retain('receiver_health', HEALTH_RETENTION_MS);
  const notices = await retain('receiver_notices', NOTICE_RETENTION_MS);
  const recoveries = await retain('recoveries', RECOVERY_RETENTION_MS);
  const requestEntries = await inBatches(s.batchSize, (limit) =>
    deleteExpiredRequestEntries(pool, before(REQUEST_ENTRY_RETENTION_MS), limit),
  );
  const strandedFailed = await inBatches(s.batchSize, (limit) =>
    failStrandedDeliveries(pool, limit),
  );
  return { switched, history, health, notices, recoveries, requestEntries, strandedFailed };
}

/**
 * Runs sweepOnce every `intervalMs` (the first pass at once) until stopped. A failed pass
 * (the database away) is logged and the next one tries again.
 */
export function startSweeper(
  deps: { pool: Pool; log: Logger },
  s: SweepSettings,
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async (): Promise<void> => {
    try {
      const r = await sweepOnce(deps.pool, s);
      const { history: h, ...rows } = r;
      const historyChanged = h.created.length + h.dropped.length + h.defaultRows > 0;
      if (historyChanged || Object.values(rows).some((n) => n > 0))
        deps.log.info(r, 'maintenance sweep');
      if (h.keptPending.length > 0)
        deps.log.warn(
          { days: h.keptPending },
          'delivery history past its retention still holds pending deliveries; kept until they finish',
        );
    } catch (err) {
      deps.log.warn({ err }, 'maintenance sweep failed; the next pass retries');
    }
  };
  const loop = (): void => {
    running = pass().finally(() => {
      if (!stopped) timer = setTimeout(loop, s.intervalMs);
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
