import type { Pool, PoolClient } from '@brand/shared/db';
import type { KeyEnvironment } from '@brand/shared/keys';
import { rfc3339 } from '@brand/shared/db';
import type { TierName } from '@brand/shared/enums';

export interface KeyRow {
  id: string;
  brand_id: string;
  name: string;
  environment: KeyEnvironment;
  prefix: string;
  permissions: string[];
  created_at: string;
  /** Email of the member who created it. */
  created_by: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key as authentication needs it: its hash for the constant-time check, and its brand's tier. */
export interface KeyIdentityRow {
  id: string;
  brand_id: string;
  environment: KeyEnvironment;
  key_hash: Buffer;
  permissions: string[];
  revoked_at: string | null;
  tier: TierName;
}

type Db = Pool | PoolClient;

const KEY_COLUMNS = `k.id, k.brand_id, k.name, k.environment, k.prefix, k.permissions,
  ${rfc3339('k.created_at')} as created_at, m.email as created_by,
  ${rfc3339('k.last_used_at')} as last_used_at, ${rfc3339('k.revoked_at')} as revoked_at`;

export async function insertKey(
  db: Db,
  key: {
    id: string;
    brandId: string;
    name: string;
    environment: KeyEnvironment;
    prefix: string;
    keyHash: Buffer;
    permissions: string[];
    createdBy: string;
  },
): Promise<KeyRow> {
  await db.query(
    `insert into api_keys (id, brand_id, name, environment, prefix, key_hash, permissions, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      key.id,
      key.brandId,
      key.name,
      key.environment,
      key.prefix,
      key.keyHash,
      key.permissions,
      key.createdBy,
    ],
  );
  return (await selectKey(db, key.id))!;
}

export async function selectKey(db: Db, id: string): Promise<KeyRow | undefined> {
  const r = await db.query<KeyRow>(
    `select ${KEY_COLUMNS} from api_keys k join brand_members m on m.id = k.created_by where k.id = $1`,
    [id],
  );
  return r.rows[0];
}

/** A brand's keys, newest first. */
export async function selectKeys(db: Db, brandId: string): Promise<KeyRow[]> {
  const r = await db.query<KeyRow>(
    `select ${KEY_COLUMNS} from api_keys k join brand_members m on m.id = k.created_by
     where k.brand_id = $1 order by k.created_at desc, k.id desc`,
    [brandId],
  );
  return r.rows;
}

/** Looks a key up by the SHA-256 of its secret (unique index). */
export async function selectKeyIdentity(
  db: Db,
  keyHash: Buffer,
): Promise<KeyIdentityRow | undefined> {
  const r = await db.query<KeyIdentityRow>(
    `select k.id, k.brand_id, k.environment, k.key_hash, k.permissions, k.revoked_at::text, b.tier
     from api_keys k join brands b on b.id = k.brand_id where k.key_hash = $1`,
    [keyHash],
  );
  return r.rows[0];
}

/**
 * Marks a key revoked, once: revoking again keeps the first time. Returns the key hash
 * (for telling gateways to forget it) or undefined for an unknown key.
 */
export async function markKeyRevoked(
  db: Db,
  id: string,
  revokedBy: string,
): Promise<{ key_hash: Buffer; newly_revoked: boolean } | undefined> {
  const r = await db.query<{ key_hash: Buffer; newly_revoked: boolean }>(
    `with prior as (select id, revoked_at from api_keys where id = $1 for update)
     update api_keys k
       set revoked_at = coalesce(k.revoked_at, now()), revoked_by = coalesce(k.revoked_by, $2)
     from prior where k.id = prior.id
     returning k.key_hash, prior.revoked_at is null as newly_revoked`,
    [id, revokedBy],
  );
  return r.rows[0];
}

/**
 * Records use, at most once a minute per key: last_used_at is for humans deciding which
 * keys are idle, and a write per request would cost more than it tells.
 */
export async function touchKey(db: Db, id: string): Promise<void> {
  await db.query(
    `update api_keys set last_used_at = now()
     where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    [id],
  );
}
