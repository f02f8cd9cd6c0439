import { LRUCache } from 'lru-cache';

/**
 * An LRU of at most `max` entries whose memory grows with the entries it holds.
 *
 * lru-cache sizes its arrays for `max` when it is made (`Array.from({ length: max })` twice and
 * three typed arrays): for the rate limit's six LRUs of 100,000 keys, 12.5 MB of every gateway's
 * RSS and about 35 ms of CPU of its start before its first request (2026-12-03, three gateways
 * twice: RSS 125-131 -> 113 MB, heap 38.6 -> 29.0 MB, CPU to listening 530-560 -> 490-530 ms).
 * Counted through `maxSize` with each entry of size 1 it keeps the same bound and evicts in the
 * same order, and allocates as entries come.
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  max: number,
): LRUCache<K, V> {
  // maxSize 0 would mean no bound at all
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`an LRU holds at least one entry, not ${max}`);
  return new LRUCache<K, V>({ maxSize: max, sizeCalculation: () => 1 });
}
