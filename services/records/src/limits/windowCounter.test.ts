import { createLogger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { retryAfterSecondsOf, WindowCounter } from './windowCounter';

const log = createLogger({ service: 'test', level: 'silent' });
/** A Redis whose every command fails, as when it is unreachable. */
const downRedis = {
  eval: () => Promise.reject(new Error('Connection is closed.')),
} as unknown as Redis;
/** A Redis answering the count script with the count and the key's PTTL given. */
const answering = (count: number, ttl: number) =>
  ({ eval: () => Promise.resolve([count, ttl]) }) as unknown as Redis;

describe('WindowCounter', () => {
  it("answers Redis' count and the window's ms left", async () => {
    await expect(
      new WindowCounter(answering(3, 1_500), log, 't').count('k', 60_000),
    ).resolves.toEqual([3, 1_500]);
  });

  it('reads a key Redis keeps without expiry as a whole window left', async () => {
    await expect(new WindowCounter(answering(1, -1), log, 't').count('k', 60_000)).resolves.toEqual(
      [1, 60_000],
    );
  });

  it('counts in the process while Redis is unreachable, each key apart, afresh each window', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const counter = new WindowCounter(downRedis, log, 't');
      expect(await counter.count('a', 10_000)).toEqual([1, 10_000]);
      jest.setSystemTime(1_004_000);
      expect(await counter.count('a', 10_000)).toEqual([2, 6_000]);
      expect(await counter.count('b', 10_000)).toEqual([1, 10_000]);
      jest.setSystemTime(1_010_000);
      expect(await counter.count('a', 10_000)).toEqual([1, 10_000]);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('retryAfterSecondsOf', () => {
  it('rounds up to whole seconds, at least one', () => {
    expect(retryAfterSecondsOf(59_001)).toBe(60);
    expect(retryAfterSecondsOf(60_000)).toBe(60);
    expect(retryAfterSecondsOf(1)).toBe(1);
    expect(retryAfterSecondsOf(0)).toBe(1);
  });
});
