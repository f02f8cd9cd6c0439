import { LRUCache } from 'lru-cache';
import type { Identity } from './identity';

/**
 * Verified keys by SHA-256 hash, for a short TTL, so a busy integration costs one lookup
 * per TTL rather than one per request. Concurrent misses for one key share a lookup.
 *
 * Revocation: invalidate() drops the entry at once, and bumps a generation so that a
 * lookup which started before the revocation (and may have read the key as valid) cannot
 * put it back. The TTL bounds staleness only when a revocation announcement is lost
 * (Redis down), and clear() runs whenever the announcement channel reconnects.
 *
 * Expiry: an identity carries its key's expiry, and every read compares it with the clock,
 * so a cached key stops being served at its expiry instant on every instance with no
 * announcement at all (the announcement of a roll or "expire now" only brings a new expiry
 * in sooner than the TTL). An expired entry is dropped: the next lookup asks the records
 * service, which refuses the key (invalid_key) from then on.
 */
export class KeyCache {
  private readonly entries: LRUCache<string, Identity>;
  /**
   * Hashes of keys that proved valid within `provenTtlMs`: their lookups skip the
   * per-address reservation, so strangers spending an address's budget (everyone behind
   * one load balancer shares an address) cannot lock out an integration whose key we know.
   */
  private readonly proven: LRUCache<string, true>;
  private readonly inFlight = new Map<string, Promise<Identity>>();
  private generation = 0;

  private readonly now: () => number;

  constructor(opts: {
    ttlMs: number;
    maxEntries: number;
    provenTtlMs?: number;
    /** The wall clock expiries are compared with (tests pass their own). */
    now?: () => number;
  }) {
    this.now = opts.now ?? Date.now;
    this.entries = new LRUCache({ max: opts.maxEntries, ttl: opts.ttlMs, ttlAutopurge: false });
    this.proven = new LRUCache({
      max: opts.maxEntries,
      ttl: opts.provenTtlMs ?? 24 * 3_600_000,
      ttlAutopurge: false,
    });
  }

  /** True when this key proved valid recently (it may have been revoked since: look it up). */
  isProven(keyHash: string): boolean {
    return this.proven.has(keyHash);
  }

  markProven(keyHash: string): void {
    this.proven.set(keyHash, true);
  }

  forgetProven(keyHash: string): void {
    this.proven.delete(keyHash);
  }

  /** The cached identity, unless its key has expired by now (the entry is then dropped). */
  get(keyHash: string): Identity | undefined {
    const identity = this.entries.get(keyHash);
    if (identity?.expiresAtMs !== undefined && identity.expiresAtMs <= this.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return identity;
  }

  /** The cached identity, or the result of `lookup` (shared by concurrent callers). */
  async resolve(keyHash: string, lookup: () => Promise<Identity>): Promise<Identity> {
    const cached = this.get(keyHash);
    if (cached) return cached;
    const pending = this.inFlight.get(keyHash);
    if (pending) return pending;
    const startedAt = this.generation;
    const promise = lookup()
      .then((identity) => {
        if (this.generation === startedAt) this.entries.set(keyHash, identity);
        return identity;
      })
      .finally(() => {
        // Only our own entry: after invalidate() a newer lookup may hold this key's slot.
        if (this.inFlight.get(keyHash) === promise) this.inFlight.delete(keyHash);
      });
    this.inFlight.set(keyHash, promise);
    return promise;
  }

  invalidate(keyHash: string): void {
    this.generation += 1;
    this.entries.delete(keyHash);
    this.proven.delete(keyHash);
    this.inFlight.delete(keyHash);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.inFlight.clear();
  }
}
