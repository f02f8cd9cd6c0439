import { LRUCache } from 'lru-cache';
import { growingLru } from './growingLru';

it('holds at most max entries, evicting the least recently used', () => {
  const lru = growingLru<string, { n: number }>(3);
  for (const key of ['a', 'b', 'c']) lru.set(key, { n: 1 });
  lru.get('a'); // 'b' is now the least recently used
  lru.set('d', { n: 1 });
  expect([...lru.keys()].sort()).toEqual(['a', 'c', 'd']);
  lru.set('e', { n: 1 });
  expect([...lru.keys()].sort()).toEqual(['a', 'd', 'e']);
  expect(lru.size).toBe(3);
});

it('refuses a bound that would be none', () => {
  expect(() => growingLru(0)).toThrow(RangeError);
  expect(() => growingLru(1.5)).toThrow(RangeError);
});

/** Bytes of heap and array buffers `make` leaves allocated, the made value kept alive. */
function allocatedBy(make: () => unknown): number {
  const before = process.memoryUsage();
  const kept = make();
  const after = process.memoryUsage();
  expect(kept).toBeDefined();
  return after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
}

it('allocates as entries come, not for its bound when made', () => {
  const mb = 1024 * 1024;
  // the control: lru-cache's own max sizes its arrays for a million entries at once
  expect(allocatedBy(() => new LRUCache({ max: 1_000_000 }))).toBeGreaterThan(10 * mb);
  expect(allocatedBy(() => growingLru(1_000_000))).toBeLessThan(mb / 4);
});
