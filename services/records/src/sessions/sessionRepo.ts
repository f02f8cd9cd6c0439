import type { Pool, PoolClient } from '@brand/shared/db';
import type { SignInClient, SignInMethod } from './signInClient';

type Db = Pool | PoolClient;

export interface SessionRow {
  id: string;
  email: string;
  csrf_secret: string;
  expires_at: Date;
  sign_in_method: SignInMethod;
  /** The one brand a session opened by single sign-on opens; null for every other session. */
  sso_brand_id: string | null;
}

/**
 * The sessions a session may see and end (sessionScope.ts decides which): every session of the
 * address, or, for a session opened by a brand's single sign-on, only the sessions that brand's
 * single sign-on opened for the address.
 */
export interface SessionReach {
  email: string;
  /** Null: the whole address. Set: that brand's single sign-on sessions of the address alone. */
  ssoBrandId: string | null;
}

const SESSION_COLUMNS = 'id, email, csrf_secret, expires_at, sign_in_method, sso_brand_id';

/**
 * last_seen_at is written at most this often: resolving a session is every page and form,
 * and "last seen" to the minute is all "Your sessions" shows. The idle expiry is measured
 * from it, so it is up to this much early, never late.
 */
const LAST_SEEN_STEP_MS = 60_000;

/**
 * Opens a session, and records on every current membership of the address when and how it
 * signed in (what owners see on the members page); a single sign-on session, on the one
 * membership of its brand.
 */
export async function insertSession(
  db: Db,
  s: {
    id: string;
    tokenHash: Buffer;
    email: string;
    csrfSecret: string;
    maxAgeMs: number;
    method: SignInMethod;
    client: SignInClient;
    ssoBrandId?: string;
  },
): Promise<SessionRow> {
  const r = await db.query<SessionRow>(
    `insert into console_sessions
       (id, token_hash, email, csrf_secret, expires_at, sign_in_method, user_agent, client_address,
        sso_brand_id)
     values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond', $6, $7, $8, $9)
     returning ${SESSION_COLUMNS}`,
    [
      s.id,
      s.tokenHash,
      s.email,
      s.csrfSecret,
      s.maxAgeMs,
      s.method,
      s.client.userAgent,
      s.client.address,
      s.ssoBrandId ?? null,
    ],
  );
  await db.query(
    `update brand_members set last_signed_in_at = now(), last_sign_in_method = $2
     where email = $1 and removed_at is null and ($3::text is null or brand_id = $3)`,
    [s.email, s.method, s.ssoBrandId ?? null],
  );
  return r.rows[0]!;
}

/**
 * Finds a live session and slides its idle expiry: a session idle longer than `idleMs`, past
 * its absolute expiry, or ended, is not found. The row is written only when last_seen_at is
 * LAST_SEEN_STEP_MS old, so most requests only read.
 */
export async function touchLiveSession(
  db: Db,
  tokenHash: Buffer,
  idleMs: number,
): Promise<SessionRow | undefined> {
  const r = await db.query<SessionRow & { stale: boolean }>(
    `select ${SESSION_COLUMNS},
            last_seen_at < now() - $3 * interval '1 millisecond' as stale
     from console_sessions
     where token_hash = $1 and ended_at is null and expires_at > now()
       and last_seen_at > now() - $2 * interval '1 millisecond'`,
    [tokenHash, idleMs, LAST_SEEN_STEP_MS],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  if (row.stale) {
    await db.query(`update console_sessions set last_seen_at = now() where id = $1`, [row.id]);
  }
  const { stale: _stale, ...session } = row;
  return session;
}

/** Ends one session; returns what it reached when it was live (for the sign-out's activity). */
export async function endSession(db: Db, tokenHash: Buffer): Promise<SessionReach | undefined> {
  const r = await db.query<{ email: string; sso_brand_id: string | null }>(
    `update console_sessions set ended_at = now()
     where token_hash = $1 and ended_at is null returning email, sso_brand_id`,
    [tokenHash],
  );
  const row = r.rows[0];
  return row && { email: row.email, ssoBrandId: row.sso_brand_id };
}

/**
 * The sessions within a reach (sessionScope.ts): every session of the address, or only those a
 * brand's single sign-on opened for it. $1 is the address, $2 the brand or null.
 */
const WITHIN_REACH = `email = $1 and ($2::text is null or sso_brand_id = $2)`;

/**
 * Forgets sessions that ended, or passed their absolute expiry, a day ago (a session idle too
 * long passes its absolute expiry within 12 hours): they can never be used again.
 */
export async function deleteStaleSessions(db: Db): Promise<void> {
  await db.query(
    `delete from console_sessions
     where ended_at < now() - interval '1 day' or expires_at < now() - interval '1 day'`,
  );
}

/** A live session as "Your sessions" lists it. */
export interface SessionListRow {
  id: string;
  user_agent: string;
  client_address: string;
  sign_in_method: SignInMethod;
  created_at: Date;
  last_seen_at: Date;
}

/** The live sessions within a reach (not ended, not expired, not idle too long), newest first. */
export async function selectLiveSessionsOf(
  db: Db,
  reach: SessionReach,
  idleMs: number,
): Promise<SessionListRow[]> {
  const r = await db.query<SessionListRow>(
    `select id, user_agent, client_address, sign_in_method, created_at, last_seen_at
     from console_sessions
     where ${WITHIN_REACH} and ended_at is null and expires_at > now()
       and last_seen_at > now() - $3 * interval '1 millisecond'
     order by created_at desc, id desc`,
    [reach.email, reach.ssoBrandId, idleMs],
  );
  return r.rows;
}

/** Ends one session within a reach by id; false when it is unknown, ended, or beyond it. */
export async function endSessionOf(db: Db, reach: SessionReach, id: string): Promise<boolean> {
  const r = await db.query(
    `update console_sessions set ended_at = now()
     where ${WITHIN_REACH} and id = $3 and ended_at is null`,
    [reach.email, reach.ssoBrandId, id],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Ends every session within a reach but one; returns how many were open. */
export async function endSessionsOfExcept(
  db: Db,
  reach: SessionReach,
  keepId: string,
): Promise<number> {
  const r = await db.query(
    `update console_sessions set ended_at = now()
     where ${WITHIN_REACH} and id <> $3 and ended_at is null`,
    [reach.email, reach.ssoBrandId, keepId],
  );
  return r.rowCount ?? 0;
}

/**
 * Ends every session within a reach (an address's: pass `{ email, ssoBrandId: null }`); returns
 * how many were open.
 */
export async function endSessionsWithin(db: Db, reach: SessionReach): Promise<number> {
  const r = await db.query(
    `update console_sessions set ended_at = now() where ${WITHIN_REACH} and ended_at is null`,
    [reach.email, reach.ssoBrandId],
  );
  return r.rowCount ?? 0;
}

/** Ends every session of an address; returns how many were open. */
export async function endSessionsOf(db: Db, email: string): Promise<number> {
  return endSessionsWithin(db, { email, ssoBrandId: null });
}
