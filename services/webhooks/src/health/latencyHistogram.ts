/**
 * Upper bounds (ms) of the latency histogram kept per receiver and 5-minute bucket
 * (receiver_health.latency): roughly 1.5x apart from 5 ms to the 30 s timeout, so a
 * percentile estimated inside a bucket is off by less than half its width. The last slot
 * counts everything above the last bound. Fixed: stored rows are read with these bounds.
 */
export const LATENCY_BOUNDS_MS = [
  5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1_000, 1_500, 2_000, 3_000,
  4_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000,
] as const;

/** Slots in a stored histogram: one per bound and the overflow. */
export const LATENCY_SLOTS = LATENCY_BOUNDS_MS.length + 1;

/** The 1-based slot (PostgreSQL arrays) an answer taking `ms` falls into. */
export function latencySlot(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return (i === -1 ? LATENCY_BOUNDS_MS.length : i) + 1;
}

/**
 * The q-quantile (0..1) of a histogram, interpolated linearly inside the slot that holds it;
 * 0 when it is empty. The overflow slot answers its lower bound (the timeout).
 */
export function latencyQuantile(counts: readonly number[], q: number): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      const upper = LATENCY_BOUNDS_MS[i];
      if (upper === undefined) return lower;
      return Math.round(lower + ((upper - lower) * Math.max(0, rank - below)) / n);
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS.at(-1)!;
}

/** A histogram with nothing counted yet. */
export function emptyLatency(): number[] {
  return new Array<number>(LATENCY_SLOTS).fill(0);
}

/** Adds histograms slot by slot (rows of different windows or buckets). */
export function addHistograms(into: number[], more: readonly (number | null)[]): number[] {
  for (let i = 0; i < LATENCY_SLOTS; i++) into[i] = (into[i] ?? 0) + (more[i] ?? 0);
  return into;
}
