import type { Identity } from './identity';
import { KeyCache } from './keyCache';

const identity = (brandId: string): Identity => ({
  keyId: 'key_1',
  brandId,
  tier: 'plus',
  permissions: new Set(),
});

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyCache', () => {
  it('looks a key up once and serves it from memory afterwards', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    const lookup = jest.fn(() => Promise.resolve(identity('br_a')));
    await cache.resolve('h1', lookup);
    await cache.resolve('h1', lookup);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(cache.get('h1')?.brandId).toBe('br_a');
  });

  it('shares one lookup among concurrent misses of the same key', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    const pending = deferred<Identity>();
    const lookup = jest.fn(() => pending.promise);
    const all = Promise.all([
      cache.resolve('h1', lookup),
      cache.resolve('h1', lookup),
      cache.resolve('h1', lookup),
    ]);
    pending.resolve(identity('br_a'));
    expect((await all).map((i) => i.brandId)).toEqual(['br_a', 'br_a', 'br_a']);
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('does not cache failures', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    await expect(cache.resolve('h1', () => Promise.reject(new Error('invalid')))).rejects.toThrow(
      'invalid',
    );
    expect(cache.get('h1')).toBeUndefined();
  });

  it('invalidate drops the key at once', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    await cache.resolve('h1', () => Promise.resolve(identity('br_a')));
    cache.invalidate('h1');
    expect(cache.get('h1')).toBeUndefined();
  });

  it('a lookup that started before a revocation cannot put the key back', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    const pending = deferred<Identity>();
    const inFlight = cache.resolve('h1', () => pending.promise);
    cache.invalidate('h1');
    pending.resolve(identity('br_a'));
    await inFlight;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('clear (after a lost connection) forgets everything', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    await cache.resolve('h1', () => Promise.resolve(identity('br_a')));
    await cache.resolve('h2', () => Promise.resolve(identity('br_b')));
    cache.clear();
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBeUndefined();
  });

  it('entries expire after the TTL', async () => {
    const cache = new KeyCache({ ttlMs: 30, maxEntries: 10 });
    await cache.resolve('h1', () => Promise.resolve(identity('br_a')));
    await new Promise((r) => setTimeout(r, 60));
    expect(cache.get('h1')).toBeUndefined();
  });

  it('an older lookup settling after invalidate() does not evict the newer in-flight one', async () => {
    const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10 });
    const older = deferred<Identity>();
    const newer = deferred<Identity>();
    const first = cache.resolve('h1', () => older.promise);
    cache.invalidate('h1');
    const lookup = jest.fn(() => newer.promise);
    const second = cache.resolve('h1', lookup);
    older.resolve(identity('br_old'));
    await first;
    const third = cache.resolve('h1', lookup);
    newer.resolve(identity('br_new'));
    expect((await second).brandId).toBe('br_new');
    expect((await third).brandId).toBe('br_new');
    expect(lookup).toHaveBeenCalledTimes(1);
  });
});
