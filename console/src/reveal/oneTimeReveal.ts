import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@brand/shared/redis';

/** How long a created key or signing secret waits for its one showing. */
const REVEAL_TTL_SECONDS = 120;

/**
 * Holds a secret that must be shown exactly once (a new API key, a receiver's signing
 * secret) between the POST that created it and the page that shows it: the POST redirects to
 * that page, which takes the secret with GETDEL, so a reload, the back button or a copied URL
 * finds nothing. Kept in Redis so any console replica can answer the redirect; bound to the
 * session that created it and gone after two minutes either way.
 */
export class OneTimeReveal {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Stores `value` for `sessionToken`; returns the id the result page's URL carries. */
  async put(sessionToken: string, value: unknown): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    const record = JSON.stringify({ owner: ownerOf(sessionToken), value });
    await this.redis.set(this.key(id), record, 'EX', REVEAL_TTL_SECONDS);
    return id;
  }

  /**
   * The value, once: deleted by this read whoever asks. Undefined when already shown,
   * expired, unknown, or created by another session.
   */
  async take(sessionToken: string, id: string): Promise<unknown> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(id)) return undefined;
    const raw = await this.redis.getdel(this.key(id));
    if (raw === null) return undefined;
    const record = JSON.parse(raw) as { owner: string; value: unknown };
    return record.owner === ownerOf(sessionToken) ? record.value : undefined;
  }

  /** Whether `id` still waits unread for this session (a repeated form is sent back to it). */
  async waiting(sessionToken: string, id: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(id)) return false;
    const raw = await this.redis.get(this.key(id));
    if (raw === null) return false;
    return (JSON.parse(raw) as { owner: string }).owner === ownerOf(sessionToken);
  }

  private key(id: string): string {
    return `${this.prefix}console:reveal:${id}`;
  }
}

/** The session is named by a hash: Redis never holds a usable session token. */
function ownerOf(sessionToken: string): string {
  return createHash('sha256').update(sessionToken).digest('base64url');
}
