import { LATENCY_SLOTS, latencySlot } from './latencyHistogram';
import { healthFrom, healthWindows } from './healthWindows';
import type { HealthRow } from './healthRepo';

const NOW = Date.parse('2026-11-20T14:07:30Z') / 1000;

const row = (
  iso: string,
  attempts: number,
  succeeded: number,
  failures = {},
  ms = 100,
): HealthRow => {
  const latency = new Array<number>(LATENCY_SLOTS).fill(0);
  latency[latencySlot(ms) - 1] = attempts;
  return { start: Date.parse(iso) / 1000, attempts, succeeded, failures, latency };
};

describe('healthWindows', () => {
  const rows = [
    row('2026-11-13T12:00:00Z', 50, 50), // older than 7 days: in no window
    row('2026-11-19T12:00:00Z', 10, 4, { http_5xx: 6 }), // 7d only
    row('2026-11-20T13:00:00Z', 8, 8), // 24h and 7d
    row('2026-11-20T14:05:00Z', 4, 1, { timeout: 2, http_4xx: 1 }, 2_500), // all three
  ];
  const [hour, day, week] = healthWindows(rows, NOW);

  it('counts attempts, successes and failures by class, largest first, per window', () => {
    expect(hour).toMatchObject({ window: '1h', attempts: 4, succeeded: 1, bucketSeconds: 300 });
    expect(hour!.failures).toEqual([
      { class: 'timeout', count: 2 },
      { class: 'http_4xx', count: 1 },
    ]);
    expect(day).toMatchObject({ window: '24h', attempts: 12, succeeded: 9 });
    expect(week).toMatchObject({ window: '7d', attempts: 22, succeeded: 13 });
    expect(week!.failures[0]).toEqual({ class: 'http_5xx', count: 6 });
  });

  it('draws evenly spaced buckets ending with the one holding now', () => {
    expect(hour!.buckets).toHaveLength(12);
    expect(hour!.buckets.at(-1)).toEqual({
      start: '2026-11-20T14:05:00Z',
      succeeded: 1,
      failed: 3,
    });
    expect(hour!.buckets[0]!.start).toBe('2026-11-20T13:10:00Z');
    expect(day!.buckets).toHaveLength(24);
    expect(day!.buckets.find((b) => b.start === '2026-11-20T13:00:00Z')).toEqual({
      start: '2026-11-20T13:00:00Z',
      succeeded: 8,
      failed: 0,
    });
    expect(week!.buckets).toHaveLength(28);
    expect(week!.bucketSeconds).toBe(21_600);
  });

  it('estimates latency percentiles from the histograms', () => {
    expect(hour!.p50Ms).toBeGreaterThan(2_000);
    expect(hour!.p50Ms).toBeLessThanOrEqual(3_000);
    expect(day!.p50Ms).toBeLessThanOrEqual(100);
  });

  it('reads from the first bucket of the 7-day window', () => {
    expect(healthFrom(NOW).toISOString()).toBe(week!.buckets[0]!.start.replace('Z', '.000Z'));
  });
});
