import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

export type CeremonyPurpose = 'register' | 'sign_in';

/** Challenges are answered within this long (the browser's own timeout is the same). */
export const CHALLENGE_TTL_MS = 120_000;

export async function insertChallenge(
  db: Db,
  c: { challenge: string; purpose: CeremonyPurpose; sessionId: string; userHandle: string },
): Promise<void> {
  await db.query(
    `insert into webauthn_challenges (challenge, purpose, session_id, user_handle, expires_at)
     values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')`,
    [c.challenge, c.purpose, c.sessionId, c.userHandle, CHALLENGE_TTL_MS],
  );
}

/**
 * Takes a challenge: one statement deletes it if it is live and was issued for this purpose
 * (and session), so it is spent whatever the answer turns out to be, and a replayed answer,
 * or two racing ones, find it gone. Returns the user handle stored with it, or undefined.
 */
export async function takeChallenge(
  db: Db,
  c: { challenge: string; purpose: CeremonyPurpose; sessionId: string },
): Promise<{ userHandle: string } | undefined> {
  const r = await db.query<{ user_handle: string }>(
    `delete from webauthn_challenges
     where challenge = $1 and purpose = $2 and session_id = $3 and expires_at > now()
     returning user_handle`,
    [c.challenge, c.purpose, c.sessionId],
  );
  const row = r.rows[0];
  return row ? { userHandle: row.user_handle } : undefined;
}

/** Forgets challenges nobody answered in time. */
export async function deleteExpiredChallenges(db: Db): Promise<void> {
  await db.query(`delete from webauthn_challenges where expires_at <= now()`);
}
