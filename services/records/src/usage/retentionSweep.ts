import type { Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import { USAGE_BOUNDS } from './usageBounds';

/** Rows one DELETE removes: short statements, short locks, whatever the backlog. */
const BATCH = 5_000;

/**
 * Deletes what usage keeps no longer: minute rows past 24 hours, hour rows, log entries and
 * flush ids past their retention, and log entries of each brand beyond the newest 10,000 (only
 * brands whose log grew since the last sweep: `touched`). Plain DELETEs in batches, never
 * relying on autovacuum. Every records replica sweeps; the deletes do not conflict.
 */
export async function sweepUsage(pool: Pool, touched: Iterable<string>): Promise<number> {
  let removed = 0;
  const batches: [string, string][] = [
    [
      'usage_minutes',
      `minute < now() - interval '${USAGE_BOUNDS.minuteRetentionHours} hours' - interval '1 minute'`,
    ],
    [
      'usage_hours',
      `hour < now() - interval '${USAGE_BOUNDS.retentionDays} days' - interval '1 hour'`,
    ],
    ['request_log', `at < now() - interval '${USAGE_BOUNDS.retentionDays} days'`],
    ['usage_batches', `received_at < now() - interval '1 day'`],
  ];
  for (const [table, old] of batches) {
    for (;;) {
      const r = await pool.query(
        `delete from ${table} where ctid = any(array(select ctid from ${table} where ${old} limit ${BATCH}))`,
      );
      removed += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < BATCH) break;
    }
  }
  for (const brand of touched) {
    const r = await pool.query(
      `delete from request_log where brand_id = $1 and (at, id) < (
         select at, id from request_log where brand_id = $1 order by at desc, id desc
         offset ${USAGE_BOUNDS.requestLogPerBrand - 1} limit 1)`,
      [brand],
    );
    removed += r.rowCount ?? 0;
  }
  return removed;
}

/**
 * Runs sweepUsage every `intervalMs`, trimming the brands whose log grew (recordUsage reports
 * them through `touch`). Returns the touch function and a stop function.
 */
export function startUsageSweep(
  pool: Pool,
  log: Logger,
  intervalMs: number,
): { touch: (brands: Iterable<string>) => void; stop: () => void } {
  let touched = new Set<string>();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const brands = touched;
    touched = new Set();
    sweepUsage(pool, brands)
      .then((removed) => {
        if (removed > 0) log.debug({ removed }, 'usage retention sweep');
      })
      .catch((err: unknown) => {
        for (const b of brands) touched.add(b);
        log.warn({ err }, 'usage retention sweep failed; retried at the next interval');
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    touch: (brands) => {
      for (const b of brands) touched.add(b);
    },
    stop: () => clearInterval(timer),
  };
}
