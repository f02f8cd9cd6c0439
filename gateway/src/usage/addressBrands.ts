import { LRUCache } from 'lru-cache';

/**
 * Which brand each client address was recently admitted for (bounded LRU, 24 hours), so a
 * request from that address with no key, an unknown key or another brand's key can go into
 * that brand's request log: the only way to attribute a request that names no key of a brand.
 * A hit is refreshed at most once a minute, so a busy integration costs one lookup per request
 * and a write a minute.
 */
export class AddressBrands {
  private readonly entries: LRUCache<string, { brandId: string; at: number }>;

  constructor(opts: { maxAddresses: number; ttlMs: number }) {
    this.entries = new LRUCache({ max: opts.maxAddresses, ttl: opts.ttlMs, ttlAutopurge: false });
  }

  admitted(address: string | undefined, brandId: string, now: number): void {
    if (address === undefined) return;
    const seen = this.entries.peek(address);
    if (seen !== undefined && seen.brandId === brandId && now - seen.at < 60_000) return;
    this.entries.set(address, { brandId, at: now });
  }

  /** The brand the address was last admitted for within the TTL, or ''. */
  brandOf(address: string | undefined): string {
    return address === undefined ? '' : (this.entries.get(address)?.brandId ?? '');
  }
}
