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
  /** From this instant the key is refused like a revoked one; only ever moves earlier. */
  expires_at: string | null;
  /** The key that replaced this one in a roll (its expiry then ends the overlap). */
  replaced_by: string | null;
  /** Canonical CIDRs its requests may come from (issue 63); empty: any network. */
  allowed_networks: string[];
}

/** A key as authentication needs it: its hash for the constant-time check, and its brand's tier. */
export interface KeyIdentityRow {
  id: string;
  brand_id: string;
  environment: KeyEnvironment;
  key_hash: Buffer;
  permissions: string[];
  revoked_at: string | null;
  expires_at: string | null;
  /** expires_at <= now() by the database's clock, the one every expiry is set by. */
  expired: boolean;
  tier: TierName;
  allowed_networks: string[];
}

type Db = Pool | PoolClient;

const KEY_COLUMNS = `k.id, k.brand_id, k.name, k.environment, k.prefix, k.permissions,
  ${rfc3339('k.created_at')} as created_at, m.email as created_by,
  ${rfc3339('k.last_used_at')} as last_used_at, ${rfc3339('k.revoked_at')} as revoked_at,
  ${rfc3339('k.expires_at')} as expires_at, k.replaced_by, k.allowed_networks`;

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
    /** RFC 3339, or null for a key that does not expire. */
    expiresAt?: string | null;
    /** Canonical networks (readNetworks); empty or absent: any. */
    allowedNetworks?: readonly string[];
  },
): Promise<KeyRow> {
  await db.query(
    `insert into api_keys
       (id, brand_id, name, environment, prefix, key_hash, permissions, created_by, expires_at,
        allowed_networks)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      key.id,
      key.brandId,
      key.name,
      key.environment,
      key.prefix,
      key.keyHash,
      key.permissions,
      key.createdBy,
      key.expiresAt ?? null,
      key.allowedNetworks ?? [],
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

/**
 * Ended keys (revoked or expired) are listed for this long after they ended, and at most this
 * many of them, the most recently ended: every live key is listed, but a brand that rolls its
 * keys daily would otherwise list every key it ever had, a page and a message growing without
 * end (past gRPC's 4 MB within a year for a brand rolling fifty keys daily). Longer than any
 * window that names a key (usage's and the request log's 7 days); the activity log keeps every
 * key's history.
 */
const ENDED_KEYS_LISTED_DAYS = 90;
const ENDED_KEYS_LISTED_MAX = 200;

/** A brand's keys, newest first: the live ones, and those that ended lately (above). */
export async function selectKeys(db: Db, brandId: string): Promise<KeyRow[]> {
  const ended = 'least(k.revoked_at, k.expires_at)';
  const r = await db.query<KeyRow>(
    `with listed as (
       select k.id from api_keys k where k.brand_id = $1 and (${ended} is null or ${ended} > now())
       union all
       (select k.id from api_keys k
         where k.brand_id = $1 and ${ended} <= now()
           and ${ended} > now() - make_interval(days => $2)
         order by ${ended} desc limit $3)
     )
     select ${KEY_COLUMNS} from api_keys k join brand_members m on m.id = k.created_by
     where k.id in (select id from listed) order by k.created_at desc, k.id desc`,
    [brandId, ENDED_KEYS_LISTED_DAYS, ENDED_KEYS_LISTED_MAX],
  );
  return r.rows;
}

/** A brand's keys that still work: not revoked, not past their expiry (the database's clock). */
export async function countLiveKeys(db: Db, brandId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from api_keys
     where brand_id = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
    [brandId],
  );
  return r.rows[0]!.n;
}

/** Looks a key up by the SHA-256 of its secret (unique index). */
export async function selectKeyIdentity(
  db: Db,
  keyHash: Buffer,
): Promise<KeyIdentityRow | undefined> {
  const r = await db.query<KeyIdentityRow>(
    `select k.id, k.brand_id, k.environment, k.key_hash, k.permissions, k.revoked_at::text,
       ${rfc3339('k.expires_at')} as expires_at, coalesce(k.expires_at <= now(), false) as expired,
       b.tier, k.allowed_networks
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
 * Records use, at most once every 10 seconds per key: last_used_at is for humans deciding
 * which keys are idle and whether a rolled key is still in use right now (issue 35: once a
 * minute could not tell), and a write per request would cost more than it tells. With the
 * gateway's key cache (KEY_CACHE_TTL_MS, 15 s) an active key's last use is seconds old.
 */
export async function touchKey(db: Db, id: string): Promise<void> {
  await db.query(
    `update api_keys set last_used_at = now()
     where id = $1 and (last_used_at is null or last_used_at < now() - interval '10 seconds')`,
    [id],
  );
}

/** A key's state as a roll or an expiry change needs it, read under a row lock. */
export interface KeyStateRow {
  key_hash: Buffer;
  revoked: boolean;
  /** By the database's clock, the one every expiry is set by. */
  expired: boolean;
  expires_at: string | null;
  replaced_by: string | null;
  /** Read under the lock: a roll copies these, as they are when it commits. */
  allowed_networks: string[];
}

/** Locks a key's row for the rest of the transaction and reads its state. */
export async function lockKeyState(db: PoolClient, id: string): Promise<KeyStateRow | undefined> {
  const r = await db.query<KeyStateRow>(
    `select key_hash, revoked_at is not null as revoked,
       coalesce(expires_at <= now(), false) as expired,
       ${rfc3339('expires_at')} as expires_at, replaced_by, allowed_networks
     from api_keys where id = $1 for update`,
    [id],
  );
  return r.rows[0];
}

/** When a key should expire: an instant, or seconds from the database's now(). */
export type KeyExpiry = { at: string } | { inSeconds: number };

/**
 * Sets a key's expiry, never later than one it already has (the earlier stays; the
 * migration's trigger refuses anything else), and the key that replaced it after a roll.
 * Returns the instant in force, RFC 3339.
 */
export async function setKeyExpiresAt(
  db: PoolClient,
  id: string,
  expiry: KeyExpiry,
  replacedBy?: string,
): Promise<string> {
  const r = await db.query<{ expires_at: string }>(
    `update api_keys
       set expires_at = least(coalesce(expires_at, 'infinity'),
             coalesce($2::timestamptz, now() + make_interval(secs => $3::double precision))),
           replaced_by = coalesce($4, replaced_by)
     where id = $1
     returning ${rfc3339('expires_at')} as expires_at`,
    [
      id,
      'at' in expiry ? expiry.at : null,
      'inSeconds' in expiry ? expiry.inSeconds : null,
      replacedBy ?? null,
    ],
  );
  return r.rows[0]!.expires_at;
}
