import type { Logger } from '@brand/shared/logger';
import type { Redis } from '@brand/shared/redis';

/**
 * The keys that proved valid lately, as every gateway knows them: one Redis key per API key's
 * hash (`<prefix>proven:<hash>`, expiring after KEY_PROVEN_TTL_MS). Each gateway keeps its own
 * set too (KeyCache), but the address budgets it protects are shared through Redis, so a key
 * proven on one gateway was refused on another, and on every pod after a rollout, once strangers
 * behind its address had spent the budget (a hostile review, 2026-11-30). Read only on that
 * path, when a key this process has not proven meets a spent address budget; written when a
 * key proves valid here, at most once an hour per key and process. Redis unreachable: a read
 * answers "not proven" (the address budget decides, as before) and a write is dropped.
 */
export class SharedProvenKeys {
  /** When this process last wrote each key: a write an hour keeps the expiry well ahead. */
  private readonly written = new Map<string, number>();
  private warned = false;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async has(keyHash: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.keyOf(keyHash))) === 1;
    } catch (err) {
      this.warnOnce(err);
      return false;
    }
  }

  add(keyHash: string): void {
    const now = this.now();
    if (now - (this.written.get(keyHash) ?? -Infinity) < REWRITE_AFTER_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(keyHash, now);
    this.redis.set(this.keyOf(keyHash), '1', 'PX', this.ttlMs).catch((err: unknown) => {
      this.written.delete(keyHash);
      this.warnOnce(err);
    });
  }

  remove(keyHash: string): void {
    this.written.delete(keyHash);
    this.redis.del(this.keyOf(keyHash)).catch((err: unknown) => this.warnOnce(err));
  }

  private keyOf(keyHash: string): string {
    return `${this.keyPrefix}proven:${keyHash}`;
  }

  private warnOnce(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.log.warn(
      { err },
      'proven keys unreadable in Redis: a key proven on another gateway meets its address budget here',
    );
  }
}

const REWRITE_AFTER_MS = 3_600_000;
/** The keys whose last write this process remembers; past it, each is written once more. */
const MAX_REMEMBERED = 100_000;
