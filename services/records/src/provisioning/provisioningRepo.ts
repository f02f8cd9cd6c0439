import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';
import { newId } from '@brand/shared/ids';

type Db = Pool | PoolClient;

/** What an owner chose for the brand's provisioning (columns of brands, migration 0024). */
export interface ProvisioningSettingsRow {
  jit_enabled: boolean;
  jit_groups_claim: string;
  revoke_keys_on_deprovision: boolean;
}

export async function selectProvisioningSettings(
  db: Db,
  brandId: string,
): Promise<ProvisioningSettingsRow | undefined> {
  const r = await db.query<ProvisioningSettingsRow>(
    `select jit_enabled, jit_groups_claim, revoke_keys_on_deprovision from brands where id = $1`,
    [brandId],
  );
  return r.rows[0];
}

/**
 * Locks the brand's row (as member changes and the key policy do) and reads its settings there:
 * what a change with a precondition compares, before it writes. Undefined: no brand.
 */
export async function lockProvisioningSettings(
  db: PoolClient,
  brandId: string,
): Promise<ProvisioningSettingsRow | undefined> {
  const r = await db.query<ProvisioningSettingsRow>(
    `select jit_enabled, jit_groups_claim, revoke_keys_on_deprovision from brands
      where id = $1 for update`,
    [brandId],
  );
  return r.rows[0];
}

export async function updateProvisioningSettings(
  db: Db,
  brandId: string,
  s: ProvisioningSettingsRow,
): Promise<void> {
  await db.query(
    `update brands set jit_enabled = $2, jit_groups_claim = $3, revoke_keys_on_deprovision = $4
      where id = $1`,
    [brandId, s.jit_enabled, s.jit_groups_claim, s.revoke_keys_on_deprovision],
  );
}

/** One group mapped to a role. */
export interface RoleMappingRow {
  group_key: string;
  role: RoleName;
}

export async function selectRoleMappings(db: Db, brandId: string): Promise<RoleMappingRow[]> {
  const r = await db.query<RoleMappingRow>(
    `select group_key, role from role_mappings where brand_id = $1 order by group_key`,
    [brandId],
  );
  return r.rows;
}

export async function upsertRoleMapping(
  db: Db,
  brandId: string,
  groupKey: string,
  role: RoleName,
): Promise<void> {
  await db.query(
    `insert into role_mappings (brand_id, group_key, role) values ($1, $2, $3)
     on conflict (brand_id, group_key) do update set role = excluded.role`,
    [brandId, groupKey, role],
  );
}

export async function deleteRoleMapping(
  db: Db,
  brandId: string,
  groupKey: string,
): Promise<boolean> {
  const r = await db.query(`delete from role_mappings where brand_id = $1 and group_key = $2`, [
    brandId,
    groupKey,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** The brand's SCIM users' ids (a mapping change derives every one's role again). */
export async function selectScimUserIds(db: Db, brandId: string): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `select id from scim_users where brand_id = $1 order by created_at, id`,
    [brandId],
  );
  return r.rows.map((row) => row.id);
}

/** The brand's members its provider manages, with the SCIM groups of each. */
export async function selectManagedMembers(
  db: Db,
  brandId: string,
): Promise<
  { member_id: string; email: string; role: RoleName; managed_by: string; groups: string[] }[]
> {
  const r = await db.query<{
    member_id: string;
    email: string;
    role: RoleName;
    managed_by: string;
    groups: string[];
  }>(
    `select m.id as member_id, m.email, m.role, m.managed_by,
            coalesce(array_agg(g.display_name order by g.display_name)
                       filter (where g.id is not null), '{}') as groups
       from brand_members m
       left join scim_users u on u.member_id = m.id
       left join scim_group_members gm on gm.user_id = u.id
       left join scim_groups g on g.id = gm.group_id
      where m.brand_id = $1 and m.removed_at is null and m.managed_by is not null
      group by m.id order by m.email`,
    [brandId],
  );
  return r.rows;
}

/** The brand's SCIM users that hold no membership, by address. */
export async function selectUnprovisioned(db: Db, brandId: string): Promise<string[]> {
  const r = await db.query<{ email: string }>(
    `select email from scim_users where brand_id = $1 and member_id is null order by email`,
    [brandId],
  );
  return r.rows.map((row) => row.email);
}

/** Requests of the provider kept per brand: the page shows the newest; older ones are dropped. */
const KEPT_REQUESTS = 200;

export interface ScimRequestRow {
  at: string;
  token_name: string;
  method: string;
  path: string;
  status: number;
  summary: string;
}

export async function insertScimRequest(
  db: Db,
  brandId: string,
  e: Omit<ScimRequestRow, 'at'>,
): Promise<void> {
  await db.query(
    `insert into scim_requests (id, brand_id, token_name, method, path, status, summary)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [newId('scimRequest'), brandId, e.token_name, e.method, e.path, e.status, e.summary],
  );
  // One in ten inserts trims the brand's log to its newest rows: bounded without a sweep.
  if (Math.random() < 0.1) {
    await db.query(
      `delete from scim_requests where brand_id = $1 and id in (
         select id from scim_requests where brand_id = $1
          order by at desc, id desc offset $2)`,
      [brandId, KEPT_REQUESTS],
    );
  }
}

export async function selectScimRequests(
  db: Db,
  brandId: string,
  limit: number,
): Promise<ScimRequestRow[]> {
  const r = await db.query<ScimRequestRow>(
    `select ${rfc3339('at')} as at, token_name, method, path, status, summary from scim_requests
      where brand_id = $1 order by at desc, id desc limit $2`,
    [brandId, limit],
  );
  return r.rows;
}

/**
 * The people the provider deprovisioned (a membership it managed, removed: deactivated or deleted
 * at the provider), newest first, with the API keys each created that still work: what they left
 * behind, for the owners to roll or keep. Someone the brand invited back is no longer listed.
 */
export async function selectDeprovisioned(
  db: Db,
  brandId: string,
): Promise<{ email: string; keys: { id: string; name: string; prefix: string }[] }[]> {
  const r = await db.query<{ email: string; keys: { id: string; name: string; prefix: string }[] }>(
    `select m.email,
            coalesce(jsonb_agg(jsonb_build_object('id', k.id, 'name', k.name, 'prefix', k.prefix)
                       order by k.created_at) filter (where k.id is not null), '[]') as keys
       from brand_members m
       left join api_keys k on k.created_by = m.id and k.revoked_at is null
                           and (k.expires_at is null or k.expires_at > now())
      where m.brand_id = $1 and m.removed_at is not null and m.managed_by is not null
      group by m.id order by max(m.removed_at) desc, m.email
      limit 200`,
    [brandId],
  );
  return r.rows;
}
