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
  /** The brands this session has acted at (its sign-in is recorded at each, once). */
  acted_brand_ids: string[];
  /** The brands whose sign-in policy refused this session (the refusal recorded once each). */
  refused_brand_ids: string[];
  /**
   * The brands the address was removed from while this session lived: it never opens them again,
   * even once the address is a member there again (a new sign-in does).
   */
  left_brand_ids: string[];
}

/** A session found live, and whether its last_seen_at was just written (a minute had passed). */
export type TouchedSession = SessionRow & { touched: boolean };

/** What ending sessions did: how many were live, and the brands they had acted at. */
export interface SessionsEnded {
  ended: number;
  brandIds: string[];
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

const SESSION_COLUMNS = `id, email, csrf_secret, expires_at, sign_in_method, sso_brand_id,
  acted_brand_ids, refused_brand_ids, left_brand_ids`;

/**
 * last_seen_at is written at most this often: resolving a session is every page and form,
 * and "last seen" to the minute is all "Your sessions" shows. The idle expiry is measured
 * from it, so it is up to this much early, never late.
 */
const LAST_SEEN_STEP_MS = 60_000;

/**
 * Opens a session. A session opened by a brand's single sign-on has acted at that brand from the
 * start (it opened there); any other acts at a brand when it first opens it (resolveSession).
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
        sso_brand_id, acted_brand_ids)
     values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond', $6, $7, $8, $9::text,
             case when $9::text is null then '{}'::text[] else array[$9::text] end)
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
  return r.rows[0]!;
}

/**
 * Notes that the session acted at a brand, or was refused there; true only for the first time
 * (one statement decides, so two requests at once record it once).
 */
export async function markSessionAt(
  db: Db,
  sessionId: string,
  brandId: string,
  how: 'acted' | 'refused',
): Promise<boolean> {
  const column = how === 'acted' ? 'acted_brand_ids' : 'refused_brand_ids';
  const r = await db.query(
    `update console_sessions set ${column} = array_append(${column}, $2::text)
      where id = $1 and not ($2::text = any(${column}))`,
    [sessionId, brandId],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * The address left the brand (removed): its live sessions never open the brand again. Those the
 * brand's single sign-on opened are ended instead (endSessionsWithin); the others keep the
 * address's other brands, and a member who comes back signs in again.
 */
export async function markSessionsLeftBrand(
  db: Db,
  m: { email: string; brandId: string },
): Promise<void> {
  await db.query(
    // no longer "acted at" either: a sign-out is recorded only where a session opened the brand
    `update console_sessions set left_brand_ids = array_append(left_brand_ids, $2::text),
            acted_brand_ids = array_remove(acted_brand_ids, $2::text)
      where email = $1 and ended_at is null and not ($2::text = any(left_brand_ids))`,
    [m.email, m.brandId],
  );
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
): Promise<TouchedSession | undefined> {
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
  const { stale, ...session } = row;
  return { ...session, touched: stale };
}

/** Ends one session; returns its address and the brands it acted at, when it was live. */
export async function endSession(
  db: Db,
  tokenHash: Buffer,
): Promise<{ email: string; brandIds: string[] } | undefined> {
  const r = await db.query<{ email: string; acted_brand_ids: string[] }>(
    `update console_sessions set ended_at = now()
     where token_hash = $1 and ended_at is null returning email, acted_brand_ids`,
    [tokenHash],
  );
  const row = r.rows[0];
  return row && { email: row.email, brandIds: row.acted_brand_ids };
}

/** How many sessions an ending statement ended, and the brands any of them acted at. */
function endedOf(rows: { acted_brand_ids: string[] }[]): SessionsEnded {
  return { ended: rows.length, brandIds: [...new Set(rows.flatMap((r) => r.acted_brand_ids))] };
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

/** Ends one session within a reach by id (nothing ended when it is unknown, ended, or beyond it). */
export async function endSessionOf(
  db: Db,
  reach: SessionReach,
  id: string,
): Promise<SessionsEnded> {
  const r = await db.query<{ acted_brand_ids: string[] }>(
    `update console_sessions set ended_at = now()
     where ${WITHIN_REACH} and id = $3 and ended_at is null returning acted_brand_ids`,
    [reach.email, reach.ssoBrandId, id],
  );
  return endedOf(r.rows);
}

/** Ends every session within a reach but one. */
export async function endSessionsOfExcept(
  db: Db,
  reach: SessionReach,
  keepId: string,
): Promise<SessionsEnded> {
  const r = await db.query<{ acted_brand_ids: string[] }>(
    `update console_sessions set ended_at = now()
     where ${WITHIN_REACH} and id <> $3 and ended_at is null returning acted_brand_ids`,
    [reach.email, reach.ssoBrandId, keepId],
  );
  return endedOf(r.rows);
}

/**
 * Ends every session within a reach: an address's (`{ email, ssoBrandId: null }`), or the
 * sessions one brand's single sign-on opened for it.
 */
export async function endSessionsWithin(db: Db, reach: SessionReach): Promise<SessionsEnded> {
  const r = await db.query<{ acted_brand_ids: string[] }>(
    `update console_sessions set ended_at = now()
      where ${WITHIN_REACH} and ended_at is null returning acted_brand_ids`,
    [reach.email, reach.ssoBrandId],
  );
  return endedOf(r.rows);
}
