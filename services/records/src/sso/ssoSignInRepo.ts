import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

/** A single sign-on is finished within this long, or started again (ten minutes). */
const SSO_SIGN_IN_TTL_MS = 10 * 60_000;

/** A sign-in started and not finished: what the callback needs, never sent to the browser. */
export interface PendingSsoSignIn {
  brand_id: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
}

export async function insertPendingSsoSignIn(
  db: Db,
  p: PendingSsoSignIn & { state: string; bindingHash: Buffer },
): Promise<void> {
  await db.query(
    `insert into sso_sign_ins
       (state, brand_id, nonce, code_verifier, binding_hash, redirect_uri, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')`,
    [
      p.state,
      p.brand_id,
      p.nonce,
      p.code_verifier,
      p.bindingHash,
      p.redirect_uri,
      SSO_SIGN_IN_TTL_MS,
    ],
  );
}

/**
 * Takes a pending sign-in: one statement deletes it if it is live and was started by this
 * browser, so a replayed callback, or two racing ones, find it gone. A callback from another
 * browser takes nothing (the row stays for its own browser, until it expires).
 */
export async function takePendingSsoSignIn(
  db: Db,
  p: { state: string; bindingHash: Buffer },
): Promise<PendingSsoSignIn | undefined> {
  const r = await db.query<PendingSsoSignIn>(
    `delete from sso_sign_ins
     where state = $1 and binding_hash = $2 and expires_at > now()
     returning brand_id, nonce, code_verifier, redirect_uri`,
    [p.state, p.bindingHash],
  );
  return r.rows[0];
}

/** How long a presented code is remembered: codes live minutes (RFC 6749 §4.1.2: at most ten). */
const PRESENTED_CODE_KEPT_MS = 60 * 60_000;

/**
 * Marks an authorization code presented at the callback (by its SHA-256, committed before the
 * code goes to any token endpoint); false when it was presented before, under any state.
 */
export async function presentCodeOnce(db: Db, code: string): Promise<boolean> {
  const r = await db.query(
    `insert into sso_codes_presented (code_hash) values ($1) on conflict do nothing`,
    [createHash('sha256').update(code).digest()],
  );
  return r.rowCount === 1;
}

/** Forgets sign-ins nobody finished in time, and codes presented long enough ago. */
export async function deleteExpiredSsoSignIns(db: Db): Promise<void> {
  await db.query(`delete from sso_sign_ins where expires_at <= now()`);
  await db.query(
    `delete from sso_codes_presented where presented_at <= now() - $1 * interval '1 millisecond'`,
    [PRESENTED_CODE_KEPT_MS],
  );
}
