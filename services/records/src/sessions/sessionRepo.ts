import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

export interface SessionRow {
  id: string;
  email: string;
  csrf_secret: string;
  expires_at: Date;
}

export async function insertSession(
  db: Db,
  s: { id: string; tokenHash: Buffer; email: string; csrfSecret: string; maxAgeMs: number },
): Promise<SessionRow> {
  const r = await db.query<SessionRow>(
    `insert into console_sessions (id, token_hash, email, csrf_secret, expires_at)
     values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')
     returning id, email, csrf_secret, expires_at`,
    [s.id, s.tokenHash, s.email, s.csrfSecret, s.maxAgeMs],
  );
  return r.rows[0]!;
}

/**
 * Finds a live session and slides its idle expiry, in one statement: a session idle longer
 * than `idleMs`, past its absolute expiry, or ended, is not found.
 */
export async function touchLiveSession(
  db: Db,
  tokenHash: Buffer,
  idleMs: number,
): Promise<SessionRow | undefined> {
  const r = await db.query<SessionRow>(
    `update console_sessions set last_seen_at = now()
     where token_hash = $1 and ended_at is null and expires_at > now()
       and last_seen_at > now() - $2 * interval '1 millisecond'
     returning id, email, csrf_secret, expires_at`,
    [tokenHash, idleMs],
  );
  return r.rows[0];
}

/** Ends one session; returns its address when it was live. */
export async function endSession(db: Db, tokenHash: Buffer): Promise<string | undefined> {
  const r = await db.query<{ email: string }>(
    `update console_sessions set ended_at = now()
     where token_hash = $1 and ended_at is null returning email`,
    [tokenHash],
  );
  return r.rows[0]?.email;
}

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

/** Ends every session of an address; returns how many were open. */
export async function endSessionsOf(db: Db, email: string): Promise<number> {
  const r = await db.query(
    `update console_sessions set ended_at = now() where email = $1 and ended_at is null`,
    [email],
  );
  return r.rowCount ?? 0;
}
