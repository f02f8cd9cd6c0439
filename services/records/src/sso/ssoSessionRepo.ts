import type { Pool, PoolClient } from '@brand/shared/db';
import type { SealedSecret } from '@brand/shared/secrets';

type Db = Pool | PoolClient;

/** Who the provider said a single sign-on session is, and its tokens, sealed. */
export interface SsoSessionLink {
  sessionId: string;
  subject: string;
  /** The provider's session id (the ID token's sid), when it sends one. */
  sid: string | null;
  tokens: SealedSecret | null;
}

/** Remembers, with a session just opened by single sign-on, what logout and re-checks need. */
export async function linkSsoSession(db: Db, s: SsoSessionLink): Promise<void> {
  await db.query(
    `update console_sessions
     set sso_subject = $2, sso_sid = $3, sso_tokens_ciphertext = $4, sso_tokens_key_id = $5,
         sso_checked_at = now()
     where id = $1`,
    [s.sessionId, s.subject, s.sid, s.tokens?.ciphertext ?? null, s.tokens?.keyId ?? null],
  );
}

/** A live single sign-on session as the re-check reads it. */
export interface SsoSessionToCheck {
  id: string;
  email: string;
  sso_brand_id: string;
  sso_subject: string;
  sso_tokens_ciphertext: Buffer | null;
  sso_tokens_key_id: string | null;
}

/**
 * Live SSO sessions last checked `intervalMs` ago or more, oldest check first, at most
 * `limit`; each is claimed (its check time moved to now) in the same statement, so two
 * records replicas never check one session at once.
 */
export async function claimSsoSessionsToCheck(
  db: Db,
  q: { intervalMs: number; limit: number },
): Promise<SsoSessionToCheck[]> {
  const r = await db.query<SsoSessionToCheck>(
    `update console_sessions s set sso_checked_at = now()
     where s.id in (
       select id from console_sessions
       where ended_at is null and expires_at > now() and sso_brand_id is not null
         and sso_subject is not null
         and coalesce(sso_checked_at, created_at) <= now() - $1 * interval '1 millisecond'
       order by coalesce(sso_checked_at, created_at)
       limit $2
       for update skip locked)
     returning s.id, s.email, s.sso_brand_id, s.sso_subject, s.sso_tokens_ciphertext,
               s.sso_tokens_key_id`,
    [q.intervalMs, q.limit],
  );
  return r.rows;
}

/** Stores the tokens a refresh answered (the provider may rotate the refresh token). */
export async function updateSsoTokens(
  db: Db,
  sessionId: string,
  tokens: SealedSecret,
): Promise<void> {
  await db.query(
    `update console_sessions set sso_tokens_ciphertext = $2, sso_tokens_key_id = $3 where id = $1`,
    [sessionId, tokens.ciphertext, tokens.keyId],
  );
}

/**
 * Ends a brand's live SSO sessions that match what a logout token names: its `sub`, its
 * `sid`, or both (the caller makes sure it names at least one). Answers the ended sessions.
 */
export async function endSsoSessions(
  db: Db,
  q: { brandId: string; subject: string | null; sid: string | null; issuedAt: number },
): Promise<{ id: string; email: string }[]> {
  // A logout token speaks of sessions that existed when it was issued (its iat, in seconds):
  // one opened after that second is a new sign-in the token knows nothing of (issue 59 part 5).
  const r = await db.query<{ id: string; email: string }>(
    `update console_sessions set ended_at = now()
     where ended_at is null and sso_brand_id = $1
       and ($2::text is null or sso_subject = $2) and ($3::text is null or sso_sid = $3)
       and created_at < to_timestamp($4 + 1)
     returning id, email`,
    [q.brandId, q.subject, q.sid, q.issuedAt],
  );
  return r.rows;
}

/**
 * Ends every live session the brand's single sign-on opened (its provider changed: they were
 * vouched for by the previous one, whose tokens must not go to the new one); how many.
 */
export async function endBrandSsoSessions(db: Db, brandId: string): Promise<number> {
  const r = await db.query(
    `update console_sessions set ended_at = now() where sso_brand_id = $1 and ended_at is null`,
    [brandId],
  );
  return r.rowCount ?? 0;
}

/** Ends one session (the re-check found the person gone); whether it was live. */
export async function endSsoSession(db: Db, sessionId: string): Promise<boolean> {
  const r = await db.query(
    `update console_sessions set ended_at = now() where id = $1 and ended_at is null`,
    [sessionId],
  );
  return (r.rowCount ?? 0) > 0;
}
