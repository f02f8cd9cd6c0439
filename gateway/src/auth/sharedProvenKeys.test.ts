import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';
import { SharedProvenKeys } from './sharedProvenKeys';

/** The Redis calls SharedProvenKeys makes, kept in a map; `down` makes every call fail. */
function fakeRedis() {
  const keys = new Map<string, { value: string; px: number }>();
  const calls: string[] = [];
  let down = false;
  const fail = () => Promise.reject(new Error('Connection is closed.'));
  const redis = {
    exists: (key: string) => {
      calls.push(`exists ${key}`);
      return down ? fail() : Promise.resolve(keys.has(key) ? 1 : 0);
    },
    set: (key: string, value: string, _px: 'PX', px: number) => {
      calls.push(`set ${key} ${px}`);
      if (down) return fail();
      keys.set(key, { value, px });
      return Promise.resolve('OK');
    },
    del: (key: string) => {
      calls.push(`del ${key}`);
      if (down) return fail();
      return Promise.resolve(keys.delete(key) ? 1 : 0);
    },
  };
  return { redis: redis as unknown as Redis, keys, calls, setDown: (d: boolean) => (down = d) };
}

const log = { warn: jest.fn() } as unknown as Logger;
const settle = () => new Promise((r) => setImmediate(r));

describe('SharedProvenKeys', () => {
  it('keeps a proven key under the prefix for the TTL, and forgets it on removal', async () => {
    const { redis, keys } = fakeRedis();
    const shared = new SharedProvenKeys(redis, 'p:', 86_400_000, log);
    expect(await shared.has('abc')).toBe(false);
    shared.add('abc');
    await settle();
    expect(keys.get('p:proven:abc')).toEqual({ value: '1', px: 86_400_000 });
    expect(await shared.has('abc')).toBe(true);
    shared.remove('abc');
    await settle();
    expect(await shared.has('abc')).toBe(false);
  });

  it('writes a key at most once an hour from one process, and again after a removal', async () => {
    let now = 0;
    const { redis, calls } = fakeRedis();
    const shared = new SharedProvenKeys(redis, 'p:', 86_400_000, log, () => now);
    shared.add('abc');
    now += 59 * 60_000;
    shared.add('abc');
    now += 2 * 60_000;
    shared.add('abc');
    shared.remove('abc');
    shared.add('abc');
    await settle();
    expect(calls.filter((c) => c.startsWith('set'))).toHaveLength(3);
  });

  it('answers "not proven" while Redis is unreachable, and writes again once it is back', async () => {
    const { redis, keys, setDown } = fakeRedis();
    const shared = new SharedProvenKeys(redis, 'p:', 1_000, log);
    setDown(true);
    shared.add('abc');
    await settle();
    expect(await shared.has('abc')).toBe(false);
    setDown(false);
    shared.add('abc');
    await settle();
    expect(keys.has('p:proven:abc')).toBe(true);
  });
});
