import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@brand/shared/redis';

/** How long a created key or signing secret waits for its one showing. */
const REVEAL_TTL_MS = 120_000;
/**
 * How long after its showing a secret can be shown once more to a repeat of the form that
 * created it: a double click's second press lands within a second of the first answer, even on a
 * slow connection; a person who went back to the form and posted it again later is told the
 * secret was shown.
 */
export const SHOWN_AGAIN_WITHIN_MS = 5_000;

/**
 * The page's read, in one step: the first read returns the record and keeps it SHOWN_AGAIN_WITHIN_MS
 * more (marked read); a later read returns it only if a repeat of the form granted one more
 * showing, and then deletes it. A record of another session, or read on another page than the
 * one it was made for, is left as it is (a record without a page, written by a replica of
 * before pages were bound, is read on any: it lives two minutes).
 * KEYS: record, read mark, grant. ARGV: owner, SHOWN_AGAIN_WITHIN_MS, page.
 */
const TAKE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local record = cjson.decode(raw)
if record.owner ~= ARGV[1] then return false end
if record.page ~= nil and record.page ~= ARGV[3] then return false end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return raw
end
if redis.call('GET', KEYS[3]) == 'granted' then
  redis.call('SET', KEYS[3], 'used', 'KEEPTTL')
  redis.call('DEL', KEYS[1])
  return raw
end
return false
`;

/**
 * A repeat of the form: 1 if the record is still there for this session (unread, or read within
 * SHOWN_AGAIN_WITHIN_MS), with one more showing granted when none was before; else 0 (shown and
 * gone, expired, or read and already granted once). KEYS: record, read mark, grant. ARGV: owner,
 * REVEAL_TTL_MS.
 */
const SHOW_AGAIN = `
local raw = redis.call('GET', KEYS[1])
if not raw or cjson.decode(raw).owner ~= ARGV[1] then return 0 end
local granted = redis.call('SET', KEYS[3], 'granted', 'NX', 'PX', ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 0 or granted then return 1 end
return 0
`;

/**
 * Holds a secret that must be shown once (a new API key, a receiver's signing secret) between
 * the POST that created it and the page that shows it: the POST redirects to that page, whose
 * read marks it shown, so a reload, the back button or a copied URL finds nothing. Kept in Redis
 * so any console replica can answer the redirect; bound to the session that created it and to
 * that page (its brand and kind: the same id under another brand of the same person showed one
 * brand's secret under the other's name and spent it, a hostile review of 2026-12-01), and gone
 * after two minutes either way.
 *
 * One exception, for a double click: the second press can land while the browser is still
 * fetching the first answer's page, which the server has read (the secret marked shown) and the
 * browser has dropped. So a repeat of the same form (forms/submitOnce.ts) may grant the page one
 * more showing, once, within SHOWN_AGAIN_WITHIN_MS of the first: the same session, seconds later.
 */
export class OneTimeReveal {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Stores `value` for `sessionToken`, to be shown on `page` (the result page's path without
   * the id: `/brands/<id>/keys/created`); returns the id that page's URL ends with.
   */
  async put(sessionToken: string, page: string, value: unknown): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    const record = JSON.stringify({ owner: ownerOf(sessionToken), page, value });
    await this.redis.set(this.keys(id)[0], record, 'PX', REVEAL_TTL_MS);
    return id;
  }

  /**
   * The value for the page that shows it: the first read, or the one more a repeat of the form
   * granted. Undefined when already shown, expired, unknown, created by another session, or
   * made for another page than `page` (as given to put).
   */
  async take(sessionToken: string, page: string, id: string): Promise<unknown> {
    if (!ID.test(id)) return undefined;
    const raw = (await this.redis.eval(
      TAKE,
      3,
      ...this.keys(id),
      ownerOf(sessionToken),
      SHOWN_AGAIN_WITHIN_MS,
      page,
    )) as string | null;
    return raw === null ? undefined : (JSON.parse(raw) as { value: unknown }).value;
  }

  /**
   * A repeat of the form that created `id`: whether its page can show the secret to this session
   * (still unread, or read within SHOWN_AGAIN_WITHIN_MS and granted one more showing now).
   */
  async showAgain(sessionToken: string, id: string): Promise<boolean> {
    if (!ID.test(id)) return false;
    const shown = await this.redis.eval(
      SHOW_AGAIN,
      3,
      ...this.keys(id),
      ownerOf(sessionToken),
      REVEAL_TTL_MS,
    );
    return shown === 1;
  }

  /** The record, its read mark and its grant of one more showing. */
  private keys(id: string): [string, string, string] {
    const key = `${this.prefix}console:reveal:${id}`;
    return [key, `${key}:read`, `${key}:again`];
  }
}

const ID = /^[A-Za-z0-9_-]{24}$/;

/** The session is named by a hash: Redis never holds a usable session token. */
function ownerOf(sessionToken: string): string {
  return createHash('sha256').update(sessionToken).digest('base64url');
}
