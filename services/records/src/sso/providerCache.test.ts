import { ProviderCache, type ProviderClient } from './oidcClient';

const client = (over: Partial<ProviderClient> = {}): ProviderClient => ({
  issuer: 'https://idp.example',
  clientId: 'brand-a',
  clientSecret: 'secret-1',
  ...over,
});

/** A cache over a counting discovery, at a clock the test moves. */
function cacheAt(opts: { ttlMs?: number; maxEntries?: number; fail?: () => boolean } = {}) {
  let now = 0;
  const asked: string[] = [];
  const cache = new ProviderCache(
    (c) => {
      asked.push(`${c.issuer} ${c.clientId} ${c.clientSecret}`);
      return opts.fail?.()
        ? Promise.reject(new Error('provider down'))
        : Promise.resolve({ n: asked.length });
    },
    { ttlMs: opts.ttlMs ?? 1_000, maxEntries: opts.maxEntries ?? 10, now: () => now },
  );
  return { cache, asked, advance: (ms: number) => (now += ms) };
}

describe('ProviderCache', () => {
  it('discovers once per client within the time to live, and again after it', async () => {
    const { cache, asked, advance } = cacheAt();
    expect(await cache.get(client())).toEqual({ n: 1 });
    advance(999);
    expect(await cache.get(client())).toEqual({ n: 1 });
    advance(1);
    expect(await cache.get(client())).toEqual({ n: 2 });
    expect(asked).toHaveLength(2);
  });

  it('shares one discovery between sign-ins that start together', async () => {
    const { cache, asked } = cacheAt();
    const [a, b] = await Promise.all([cache.get(client()), cache.get(client())]);
    expect(a).toBe(b);
    expect(asked).toHaveLength(1);
  });

  it('discovers afresh when the issuer, the client id or the secret changed', async () => {
    const { cache, asked } = cacheAt();
    await cache.get(client());
    await cache.get(client({ clientSecret: 'secret-2' }));
    await cache.get(client({ clientId: 'brand-b' }));
    await cache.get(client({ issuer: 'https://other.example' }));
    expect(asked).toHaveLength(4);
  });

  it('keeps no failed discovery, and forgets a client when told', async () => {
    let down = true;
    const { cache, asked } = cacheAt({ fail: () => down });
    await expect(cache.get(client())).rejects.toThrow('provider down');
    expect(asked).toHaveLength(1);
    down = false;
    expect(await cache.get(client())).toEqual({ n: 2 });
    cache.forget(client());
    expect(await cache.get(client())).toEqual({ n: 3 });
    expect(await cache.get(client())).toEqual({ n: 3 });
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const { cache, asked } = cacheAt({ maxEntries: 2 });
    await cache.get(client({ clientId: 'a' }));
    await cache.get(client({ clientId: 'b' }));
    await cache.get(client({ clientId: 'c' }));
    await cache.get(client({ clientId: 'c' }));
    await cache.get(client({ clientId: 'b' }));
    expect(asked).toHaveLength(3);
    await cache.get(client({ clientId: 'a' }));
    expect(asked).toHaveLength(4);
  });
});
