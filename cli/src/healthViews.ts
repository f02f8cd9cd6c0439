import type { HealthWindow, Receiver } from '@brand/proto/webhooks/v1';
import { formatTable, shortTime } from './output';

/** "97.5%", or "-" when nothing was attempted. */
const rate = (w: HealthWindow): string =>
  w.attempts === 0 ? '-' : `${(Math.floor((w.succeeded / w.attempts) * 1000) / 10).toString()}%`;

export const healthJson = (r: Receiver, windows: HealthWindow[]) => ({
  receiver_id: r.id,
  enabled: r.enabled,
  failing_since: r.failing_since === '' ? null : r.failing_since,
  last_error: r.last_error === '' ? null : r.last_error,
  waiting: r.waiting,
  oldest_waiting_at: r.oldest_waiting_at === '' ? null : r.oldest_waiting_at,
  windows: windows.map((w) => ({
    window: w.window,
    attempts: w.attempts,
    succeeded: w.succeeded,
    success_rate: w.attempts === 0 ? null : w.succeeded / w.attempts,
    failures: w.failures.map((f) => ({ class: f.class, count: f.count })),
    p50_ms: w.p50_ms,
    p95_ms: w.p95_ms,
    bucket_seconds: w.bucket_seconds,
    buckets: w.buckets.map((b) => ({ start: b.start, succeeded: b.succeeded, failed: b.failed })),
  })),
});

/** The three windows as a table, with the receiver's failing state above it. */
export function healthText(r: Receiver, windows: HealthWindow[]): string {
  const state = !r.enabled
    ? `Disabled${r.disabled_by_service ? ' by the service' : ''}: ${r.disabled_reason}`
    : r.failing_since
      ? `Failing since ${shortTime(r.failing_since)}: ${r.last_error}`
      : r.waiting > 0
        ? 'Catching up: the last attempt succeeded.'
        : 'Healthy: the last attempt succeeded (or none failed).';
  const backlog =
    r.waiting > 0
      ? `\n${r.waiting >= 10_000 ? 'Over ' : ''}${r.waiting} deliveries waiting (due or waiting for a retry), the oldest from ${shortTime(r.oldest_waiting_at)}.`
      : '\nNothing waiting.';
  const table = formatTable(
    ['WINDOW', 'ATTEMPTS', 'SUCCESS', 'P50', 'P95', 'FAILURES'],
    windows.map((w) => [
      w.window,
      String(w.attempts),
      rate(w),
      w.p50_ms ? `${w.p50_ms} ms` : '-',
      w.p95_ms ? `${w.p95_ms} ms` : '-',
      w.failures.map((f) => `${f.class} ${f.count}`).join(', ') || '-',
    ]),
  );
  return `${state}${backlog}\n\n${table}\n\nPer attempt, test deliveries excluded; latency estimated from a histogram.`;
}
