import type { HealthWindow } from '@brand/proto/webhooks/v1';

/**
 * One health window of several receivers added up, slice by slice, for the brand's deliveries
 * chart: attempts and successes summed, failures by kind summed (largest first), buckets summed
 * by their start (calls a moment apart may straddle a slice's edge: the newest `length` kept).
 * Latency is not summable from percentiles, so it is left out (0).
 */
export function combinedWindow(name: string, windows: HealthWindow[]): HealthWindow {
  const failures = new Map<string, number>();
  const buckets = new Map<string, { succeeded: number; failed: number }>();
  for (const w of windows) {
    for (const f of w.failures) failures.set(f.class, (failures.get(f.class) ?? 0) + f.count);
    for (const b of w.buckets) {
      const sum = buckets.get(b.start) ?? { succeeded: 0, failed: 0 };
      sum.succeeded += b.succeeded;
      sum.failed += b.failed;
      buckets.set(b.start, sum);
    }
  }
  const length = Math.max(0, ...windows.map((w) => w.buckets.length));
  return {
    window: name,
    attempts: windows.reduce((n, w) => n + w.attempts, 0),
    succeeded: windows.reduce((n, w) => n + w.succeeded, 0),
    failures: [...failures]
      .map(([c, count]) => ({ class: c, count }))
      .sort((a, b) => b.count - a.count),
    p50_ms: 0,
    p95_ms: 0,
    buckets: [...buckets]
      .sort(([a], [b]) => Date.parse(a) - Date.parse(b))
      .slice(-length)
      .map(([start, sum]) => ({ start, ...sum })),
    bucket_seconds: windows[0]?.bucket_seconds ?? 0,
  };
}
