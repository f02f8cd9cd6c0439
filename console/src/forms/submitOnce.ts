import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@brand/shared/redis';
import type { OneTimeReveal } from '../reveal/oneTimeReveal';

/** The hidden field that carries a create form's one-time token. */
export const ONCE_FIELD = '_once';

/**
 * How long a rendered create form may be posted, and its first post remembered: longer than a
 * console session lives (12 hours unless configured), so a form's repeat is caught as long as
 * its CSRF token still passes.
 */
const FORM_LIFETIME_MS = 24 * 3_600_000;
/** How long a repeat waits for the first post, still running, to finish. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 100;

/** "<issued, ms, base 36>.<18 random bytes>": the time lets an old form be refused, not forgotten. */
const TOKEN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{24})$/;

/** What the first post of a form settled as, kept under its token. */
type Settled =
  | { state: 'pending' }
  | { state: 'done'; location: string; revealId: string }
  | { state: 'failed' };

/** The first post of a form: it creates, then says how it ended. */
export interface FirstPost {
  kind: 'first';
  /**
   * Created; `location` is where this post sends the browser, `revealId` the one-time reveal
   * that page takes its secret from ('' for none: the page can be shown again).
   */
  done(location: string, revealId: string): Promise<void>;
  /** Refused with nothing created: the same form may be posted again. */
  release(): Promise<void>;
  /** Failed in a way that may have created it: a repeat is sent to check the list. */
  failed(): Promise<void>;
}

/**
 * A repeat of a form already posted. `location`: the first post's answer, still worth showing
 * (its secret waits unread, or was read seconds ago by a page the second press may have
 * dropped: a double click; or it has no secret). Otherwise `created` says whether the first post
 * created the thing (its secret already shown) or did not finish (failed, or still running
 * after a wait).
 */
export interface Repeat {
  kind: 'repeat';
  location?: string;
  created: boolean;
}

/**
 * One submission per rendered create form (a key, a receiver, an audit stream, a SCIM token):
 * a double click, a retry or back-and-resubmit posts the same form twice, and each post used to
 * create one more live thing whose secret only one page ever showed. Each form carries a random
 * token (ONCE_FIELD); the first post claims it in Redis (SET NX, so every console replica sees
 * it), bound to the session (by a hash, like the reveal) and brand and form; a repeat creates
 * nothing. A post without the field (a script, not a rendered form) is not guarded.
 */
export class SubmitOnce {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly reveal: OneTimeReveal,
  ) {}

  /** A fresh token for one rendering of a create form. */
  token(now = Date.now()): string {
    return `${now.toString(36)}.${randomBytes(18).toString('base64url')}`;
  }

  /**
   * Claims the posted form's token: the first post of it, a repeat, or 'stale' (malformed, or
   * older than a form lives: nothing is created, the page is shown again with a fresh form).
   */
  async claim(
    sessionToken: string,
    brandId: string,
    form: string,
    posted: unknown,
    now = Date.now(),
  ): Promise<FirstPost | Repeat | { kind: 'stale' }> {
    if (posted === undefined || posted === '') return unguarded;
    const m = typeof posted === 'string' ? TOKEN.exec(posted) : null;
    const issued = m ? parseInt(m[1]!, 36) : NaN;
    if (!m || !(issued <= now + 60_000) || now - issued > FORM_LIFETIME_MS)
      return { kind: 'stale' };
    const key = `${this.prefix}console:form-once:${digest(`${sessionToken}\n${brandId}\n${form}\n${posted as string}`)}`;
    const put = (s: Settled, how: 'NX' | 'XX') =>
      how === 'NX'
        ? this.redis.set(key, JSON.stringify(s), 'PX', FORM_LIFETIME_MS, 'NX')
        : this.redis.set(key, JSON.stringify(s), 'PX', FORM_LIFETIME_MS, 'XX');
    // Twice: a first post refused (nothing created) releases the token to the next.
    for (let attempt = 0; attempt < 2; attempt++) {
      if ((await put({ state: 'pending' }, 'NX')) === 'OK') {
        return {
          kind: 'first',
          done: async (location, revealId) =>
            void (await put({ state: 'done', location, revealId }, 'XX')),
          release: async () => void (await this.redis.del(key)),
          failed: async () => void (await put({ state: 'failed' }, 'XX')),
        };
      }
      const settled = await this.settledAt(key);
      if (settled === undefined) continue;
      if (settled.state !== 'done') break;
      const showable =
        settled.revealId === '' || (await this.reveal.showAgain(sessionToken, settled.revealId));
      return showable
        ? { kind: 'repeat', location: settled.location, created: true }
        : { kind: 'repeat', created: true };
    }
    return { kind: 'repeat', created: false };
  }

  /** The first post's outcome, waiting a while for one still running. */
  private async settledAt(key: string): Promise<Settled | undefined> {
    const until = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const raw = await this.redis.get(key);
      const settled = raw === null ? undefined : (JSON.parse(raw) as Settled);
      if (settled?.state !== 'pending' || Date.now() >= until) return settled;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

/** A post without a token: created as before, nothing remembered. */
const unguarded: FirstPost = {
  kind: 'first',
  done: async () => {},
  release: async () => {},
  failed: async () => {},
};

const digest = (s: string): string => createHash('sha256').update(s).digest('base64url');
