import type { Pool, PoolClient } from '@brand/shared/db';

type Db = Pool | PoolClient;

/**
 * Shares the brand's row for a key's creation, roll or change of networks: the key policy's
 * change (updateKeyPolicy) and member changes (lockBrandMembers) lock it for update, so a key
 * change waits behind them and reads the policy (and its actor) as they left it; key changes
 * do not wait for each other. Taken before the key's own lock (lockKeyState), as everywhere.
 * Read without it, a key created as the policy turned on was stored open to any network and
 * the policy's count of open keys missed it (a hostile review, 2026-12-01).
 */
export async function shareBrandForKeys(db: PoolClient, brandId: string): Promise<void> {
  await db.query('select 1 from brands where id = $1 for share', [brandId]);
}

/** The brand's key policy (issue 63): every new key must have allowed networks; undefined: no brand. */
export async function selectKeyPolicy(db: Db, brandId: string): Promise<boolean | undefined> {
  const r = await db.query<{ require_key_networks: boolean }>(
    `select require_key_networks from brands where id = $1`,
    [brandId],
  );
  return r.rows[0]?.require_key_networks;
}

/**
 * Sets the brand's key policy; returns the policy it had (undefined: no brand) and how many of
 * its active keys have no networks (what the activity entry says a policy leaves as it was).
 */
export async function updateKeyPolicy(
  db: PoolClient,
  brandId: string,
  requireKeyNetworks: boolean,
): Promise<{ previous: boolean; open_keys: number } | undefined> {
  const r = await db.query<{ previous: boolean; open_keys: number }>(
    `with prior as (select id, require_key_networks from brands where id = $1 for update)
     update brands b set require_key_networks = $2 from prior where b.id = prior.id
     returning prior.require_key_networks as previous,
       (select count(*)::int from api_keys k
        where k.brand_id = b.id and k.revoked_at is null
          and (k.expires_at is null or k.expires_at > now())
          and cardinality(k.allowed_networks) = 0) as open_keys`,
    [brandId, requireKeyNetworks],
  );
  return r.rows[0];
}

/** Replaces a key's networks (the caller holds its row lock: lockKeyState). */
export async function updateKeyNetworks(
  db: PoolClient,
  keyId: string,
  networks: readonly string[],
): Promise<void> {
  await db.query(`update api_keys set allowed_networks = $2 where id = $1`, [keyId, networks]);
}
