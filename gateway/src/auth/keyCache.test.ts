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

  describe('a key with an expiry', () => {
    const expiring = (expiresAtMs: number): Identity => ({ ...identity('br_a'), expiresAtMs });

    it('is served up to its expiry instant and never from it, whatever the TTL', async () => {
      let now = 1_000_000;
      const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10, now: () => now });
      const lookup = jest.fn(() => Promise.resolve(expiring(1_002_000)));
      await cache.resolve('h1', lookup);
      now = 1_001_999;
      expect(cache.get('h1')?.brandId).toBe('br_a');
      now = 1_002_000;
      expect(cache.get('h1')).toBeUndefined();
      // Dropped, not hidden: going back in time (a test clock) does not bring it back.
      now = 1_001_000;
      expect(cache.get('h1')).toBeUndefined();
      expect(lookup).toHaveBeenCalledTimes(1);
    });

    it('is looked up again once expired (the records service then refuses it)', async () => {
      let now = 5_000;
      const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10, now: () => now });
      await cache.resolve('h1', () => Promise.resolve(expiring(6_000)));
      now = 6_000;
      const refused = jest.fn(() => Promise.reject(new Error('invalid_key')));
      await expect(cache.resolve('h1', refused)).rejects.toThrow('invalid_key');
      expect(refused).toHaveBeenCalledTimes(1);
      expect(cache.get('h1')).toBeUndefined();
    });

    it('without an expiry is served for the whole TTL', async () => {
      let now = 0;
      const cache = new KeyCache({ ttlMs: 60_000, maxEntries: 10, now: () => now });
      await cache.resolve('h1', () => Promise.resolve(identity('br_a')));
      now = 10 ** 12;
      expect(cache.get('h1')?.brandId).toBe('br_a');
    });
  });
});
