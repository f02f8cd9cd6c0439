import { toSecond } from '../requestFields';
import type { HealthRow } from './healthRepo';
import { healthBucketStart } from './healthRepo';
import { addHistograms, emptyLatency, latencyQuantile } from './latencyHistogram';

/** The windows GetReceiverHealth answers: name, chart bucket width and count. */
const HEALTH_WINDOWS = [
  { window: '1h', bucketSeconds: 300, buckets: 12 },
  { window: '24h', bucketSeconds: 3600, buckets: 24 },
  { window: '7d', bucketSeconds: 6 * 3600, buckets: 28 },
] as const;

export interface HealthWindowView {
  window: string;
  attempts: number;
  succeeded: number;
  /** Largest first; ties by name, so the order is stable. */
  failures: Array<{ class: string; count: number }>;
  p50Ms: number;
  p95Ms: number;
  bucketSeconds: number;
  buckets: Array<{ start: string; succeeded: number; failed: number }>;
}

/**
 * The first second (Unix) a window covers: its buckets end with the one holding `nowSec`,
 * so "1h" is the current 5-minute slice and the 11 before it. Every chart width is a
 * multiple of the stored 5 minutes and aligned to the epoch, so a stored row falls into
 * exactly one chart bucket.
 */
function windowStart(w: (typeof HEALTH_WINDOWS)[number], nowSec: number): number {
  const last = Math.floor(nowSec / w.bucketSeconds) * w.bucketSeconds;
  return last - (w.buckets - 1) * w.bucketSeconds;
}

/** The earliest bucket any window reads: the query's lower bound. */
export function healthFrom(nowSec: number): Date {
  const starts = HEALTH_WINDOWS.map((w) => windowStart(w, nowSec));
  const first = Math.min(...starts);
  return healthBucketStart(new Date(first * 1000));
}

/** Folds stored 5-minute rows (oldest first) into the three windows with their charts. */
export function healthWindows(rows: readonly HealthRow[], nowSec: number): HealthWindowView[] {
  return HEALTH_WINDOWS.map((w) => {
    const from = windowStart(w, nowSec);
    const buckets = Array.from({ length: w.buckets }, (_, i) => ({
      start: toSecond(new Date((from + i * w.bucketSeconds) * 1000)),
      succeeded: 0,
      failed: 0,
    }));
    const failures = new Map<string, number>();
    const latency = emptyLatency();
    let attempts = 0;
    let succeeded = 0;
    for (const row of rows) {
      if (row.start < from) continue;
      const bucket = buckets[Math.floor((row.start - from) / w.bucketSeconds)];
      if (!bucket) continue; // a bucket after now (clock skew between hosts)
      attempts += row.attempts;
      succeeded += row.succeeded;
      bucket.succeeded += row.succeeded;
      bucket.failed += row.attempts - row.succeeded;
      for (const [cls, n] of Object.entries(row.failures)) {
        failures.set(cls, (failures.get(cls) ?? 0) + n);
      }
      addHistograms(latency, row.latency);
    }
    return {
      window: w.window,
      attempts,
      succeeded,
      failures: [...failures]
        .map(([cls, count]) => ({ class: cls, count }))
        .sort((a, b) => b.count - a.count || a.class.localeCompare(b.class)),
      p50Ms: latencyQuantile(latency, 0.5),
      p95Ms: latencyQuantile(latency, 0.95),
      bucketSeconds: w.bucketSeconds,
      buckets,
    };
  });
}
