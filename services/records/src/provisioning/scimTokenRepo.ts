import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';

type Db = Pool | PoolClient;

/** A SCIM token as owners see it (never its hash). */
export interface ScimTokenRow {
  id: string;
  brand_id: string;
  name: string;
  prefix: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

const COLUMNS = `id, brand_id, name, prefix, ${rfc3339('created_at')} as created_at, created_by,
  ${rfc3339('expires_at')} as expires_at, ${rfc3339('revoked_at')} as revoked_at,
  ${rfc3339('last_used_at')} as last_used_at`;

/** A token that still works: not revoked, not past its expiry. */
const LIVE = `revoked_at is null and (expires_at is null or expires_at > now())`;

export async function insertScimToken(
  db: Db,
  t: {
    id: string;
    brandId: string;
    name: string;
    hash: Buffer;
    prefix: string;
    createdBy: string;
    /** The member who made it; null for an operator. */
    createdByMemberId: string | null;
  },
): Promise<ScimTokenRow> {
  const r = await db.query<ScimTokenRow>(
    `insert into scim_tokens (id, brand_id, name, token_hash, prefix, created_by,
                              created_by_member_id)
     values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
    [t.id, t.brandId, t.name, t.hash, t.prefix, t.createdBy, t.createdByMemberId],
  );
  return r.rows[0]!;
}

/** A token revoked with its maker's authority, as the activity names it. */
export interface RevokedScimToken {
  id: string;
  name: string;
  prefix: string;
}

/**
 * Revokes every token the member made that still works (an old one in its overlap too), inside
 * the caller's transaction: where a membership ends or a role that provisions is lost
 * (access/endMembership.ts). A token speaks with its maker's authority; before, an owner could
 * make one, be removed, and provision themselves back through it (a review).
 */
export async function revokeScimTokensMadeBy(
  db: Db,
  memberId: string,
): Promise<RevokedScimToken[]> {
  const r = await db.query<RevokedScimToken>(
    `update scim_tokens set revoked_at = now()
      where created_by_member_id = $1 and ${LIVE}
      returning id, name, prefix`,
    [memberId],
  );
  return r.rows.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The brand's tokens, newest first, ended ones included (revoked or expired a day ago at most). */
export async function selectScimTokens(db: Db, brandId: string): Promise<ScimTokenRow[]> {
  const r = await db.query<ScimTokenRow>(
    `select ${COLUMNS} from scim_tokens
      where brand_id = $1 and coalesce(revoked_at, expires_at, now()) > now() - interval '1 day'
      order by created_at desc, id desc`,
    [brandId],
  );
  return r.rows;
}

export async function selectScimToken(db: Db, id: string): Promise<ScimTokenRow | undefined> {
  const r = await db.query<ScimTokenRow>(`select ${COLUMNS} from scim_tokens where id = $1`, [id]);
  return r.rows[0];
}

export async function countLiveScimTokens(db: Db, brandId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from scim_tokens where brand_id = $1 and ${LIVE}`,
    [brandId],
  );
  return r.rows[0]!.n;
}

/**
 * The live token with this hash, its last use written at most once a minute (the page shows it
 * to the minute; a write per SCIM request would cost more than it tells).
 */
export async function useScimToken(
  db: Db,
  hash: Buffer,
): Promise<{ id: string; brand_id: string; name: string } | undefined> {
  const r = await db.query<{ id: string; brand_id: string; name: string }>(
    `select id, brand_id, name from scim_tokens where token_hash = $1 and ${LIVE}`,
    [hash],
  );
  const row = r.rows[0];
  if (row) {
    await db.query(
      `update scim_tokens set last_used_at = now()
        where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [row.id],
    );
  }
  return row;
}

/** Ends a live token now, or at `expiresAt` when that is sooner than any expiry it has. */
export async function endScimToken(
  db: Db,
  id: string,
  how: { revoke: true } | { expiresInMs: number },
): Promise<ScimTokenRow | undefined> {
  const r =
    'revoke' in how
      ? await db.query<ScimTokenRow>(
          `update scim_tokens set revoked_at = now() where id = $1 and ${LIVE} returning ${COLUMNS}`,
          [id],
        )
      : await db.query<ScimTokenRow>(
          `update scim_tokens
              set expires_at = least(coalesce(expires_at, 'infinity'),
                                     now() + $2 * interval '1 millisecond')
            where id = $1 and ${LIVE} returning ${COLUMNS}`,
          [id, how.expiresInMs],
        );
  return r.rows[0];
}
