import {
  addHistograms,
  LATENCY_BOUNDS_MS,
  LATENCY_SLOTS,
  latencyQuantile,
  latencySlot,
} from './latencyHistogram';

const histogram = (latencies: number[]): number[] => {
  const h = new Array<number>(LATENCY_SLOTS).fill(0);
  for (const ms of latencies) h[latencySlot(ms) - 1]! += 1;
  return h;
};

describe('latencySlot', () => {
  it('puts a latency into the first slot whose bound holds it (1-based), overflow last', () => {
    expect(latencySlot(0)).toBe(1);
    expect(latencySlot(5)).toBe(1);
    expect(latencySlot(6)).toBe(2);
    expect(latencySlot(30_000)).toBe(LATENCY_BOUNDS_MS.length);
    expect(latencySlot(45_000)).toBe(LATENCY_SLOTS);
  });
});

describe('latencyQuantile', () => {
  it('is 0 for no answers', () => {
    expect(latencyQuantile(new Array<number>(LATENCY_SLOTS).fill(0), 0.5)).toBe(0);
  });

  it('estimates within the slot that holds the quantile', () => {
    const latencies = [
      ...Array.from({ length: 90 }, () => 42),
      ...Array.from({ length: 10 }, () => 900),
    ];
    const h = histogram(latencies);
    const p50 = latencyQuantile(h, 0.5);
    const p95 = latencyQuantile(h, 0.95);
    expect(p50).toBeGreaterThan(40);
    expect(p50).toBeLessThanOrEqual(50);
    expect(p95).toBeGreaterThan(750);
    expect(p95).toBeLessThanOrEqual(1_000);
  });

  it('answers the timeout for the overflow slot', () => {
    expect(latencyQuantile(histogram([60_000, 60_000]), 0.95)).toBe(30_000);
  });
});

describe('addHistograms', () => {
  it('adds slot by slot, reading missing slots as 0', () => {
    expect(addHistograms([1, 2, 3], [1, null, 1]).slice(0, 3)).toEqual([2, 2, 4]);
  });
});
