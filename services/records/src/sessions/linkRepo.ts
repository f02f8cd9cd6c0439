import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

export async function insertSignInLink(
  db: Db,
  link: { tokenHash: Buffer; email: string; ttlMs: number },
): Promise<{ expires_at: string }> {
  const r = await db.query<{ expires_at: Date }>(
    `insert into sign_in_links (token_hash, email, expires_at)
     values ($1, $2, now() + $3 * interval '1 millisecond') returning expires_at`,
    [link.tokenHash, link.email, link.ttlMs],
  );
  return { expires_at: r.rows[0]!.expires_at.toISOString() };
}

/**
 * Ends the address's links that were never used: a new link replaces them, and signing out
 * everywhere ends them. Ended by expiring them now rather than deleted: the mail spacing counts
 * the links that went unused (signInRequestRepo.ts), and the stale sweep deletes them a day on.
 */
export async function endUnusedSignInLinksOf(db: Db, email: string): Promise<number> {
  const r = await db.query(
    `update sign_in_links set expires_at = now()
      where email = $1 and used_at is null and expires_at > now()`,
    [email],
  );
  return r.rowCount ?? 0;
}

/**
 * Spends a link: one statement marks it used only if it is unused and unexpired, so two
 * concurrent redemptions cannot both succeed. Returns the address, or undefined.
 */
export async function spendSignInLink(db: Db, tokenHash: Buffer): Promise<string | undefined> {
  const r = await db.query<{ email: string }>(
    `update sign_in_links set used_at = now()
     where token_hash = $1 and used_at is null and expires_at > now() returning email`,
    [tokenHash],
  );
  return r.rows[0]?.email;
}

/** The address an unspent, unexpired link signs in, without spending it; undefined for none. */
export async function selectSignInLinkAddress(
  db: Db,
  tokenHash: Buffer,
): Promise<string | undefined> {
  const r = await db.query<{ email: string }>(
    `select email from sign_in_links
      where token_hash = $1 and used_at is null and expires_at > now()`,
    [tokenHash],
  );
  return r.rows[0]?.email;
}

/** Forgets links that expired a day ago: they can no longer be spent, and are only clutter. */
export async function deleteStaleSignInLinks(db: Db): Promise<void> {
  await db.query(`delete from sign_in_links where expires_at < now() - interval '1 day'`);
}
