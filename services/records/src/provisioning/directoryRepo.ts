import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';

type Db = Pool | PoolClient;

/** One address of a SCIM user, as the provider sent it. */
interface ScimEmailValue {
  value: string;
  type: string;
  primary: boolean;
}

/** A SCIM user as stored (table scim_users, migration 0024). */
export interface ScimUserRow {
  id: string;
  brand_id: string;
  user_name: string;
  external_id: string | null;
  display_name: string;
  given_name: string;
  family_name: string;
  email: string;
  emails: ScimEmailValue[];
  active: boolean;
  member_id: string | null;
  /** Raised by every write the provider makes (migration 0035): what a stale write is told by. */
  version: string;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupRow {
  id: string;
  brand_id: string;
  display_name: string;
  external_id: string | null;
  /** Raised by every write of the group or its members (migration 0035). */
  version: string;
  created_at: string;
  updated_at: string;
}

const USER_COLUMNS = `u.id, u.brand_id, u.user_name, u.external_id, u.display_name, u.given_name,
  u.family_name, u.email, u.emails, u.active, u.member_id, u.version::text as version, ${rfc3339('u.created_at')} as created_at,
  ${rfc3339('u.updated_at')} as updated_at`;
const GROUP_COLUMNS = `g.id, g.brand_id, g.display_name, g.external_id, g.version::text as version,
  ${rfc3339('g.created_at')} as created_at, ${rfc3339('g.updated_at')} as updated_at`;

/** Which of a brand's users or groups a list holds: all, or those with one value. */
type UserLookup = { id?: string; userName?: string; externalId?: string };
type GroupLookup = { id?: string; displayName?: string };

/**
 * A window of a list: `limit` rows after the first `offset` (a SCIM page). The list's order
 * (created_at, then id) is total, so consecutive windows neither repeat nor skip a row that stays.
 */
export interface ListWindow {
  offset: number;
  limit: number;
}

const USER_LOOKUP = `u.brand_id = $1 and ($2::text is null or u.id = $2)
        and ($3::text is null or lower(u.user_name) = lower($3))
        and ($4::text is null or u.external_id = $4)`;
const userLookupArgs = (brandId: string, only: UserLookup) => [
  brandId,
  only.id ?? null,
  only.userName ?? null,
  only.externalId ?? null,
];

/** The brand's users, oldest first, optionally one by id, userName or externalId; or a window. */
export async function selectScimUsers(
  db: Db,
  brandId: string,
  only: UserLookup = {},
  window?: ListWindow,
): Promise<ScimUserRow[]> {
  const r = await db.query<ScimUserRow>(
    `select ${USER_COLUMNS} from scim_users u where ${USER_LOOKUP}
      order by u.created_at, u.id
      ${window ? 'limit $5 offset $6' : ''}`,
    [...userLookupArgs(brandId, only), ...(window ? [window.limit, window.offset] : [])],
  );
  return r.rows;
}

/** How many users selectScimUsers answers without a window. */
export async function countScimUsers(db: Db, brandId: string, only: UserLookup = {}) {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from scim_users u where ${USER_LOOKUP}`,
    userLookupArgs(brandId, only),
  );
  return r.rows[0]!.n;
}

/** A user of the brand, locked for a change. */
export async function lockScimUser(
  db: PoolClient,
  brandId: string,
  id: string,
): Promise<ScimUserRow | undefined> {
  const r = await db.query<ScimUserRow>(
    `select ${USER_COLUMNS} from scim_users u where u.brand_id = $1 and u.id = $2 for update`,
    [brandId, id],
  );
  return r.rows[0];
}

/** The fields a provider writes, as stored. */
export interface ScimUserFields {
  userName: string;
  externalId: string | null;
  displayName: string;
  givenName: string;
  familyName: string;
  email: string;
  emails: ScimEmailValue[];
  active: boolean;
}

export async function insertScimUser(
  db: Db,
  brandId: string,
  id: string,
  f: ScimUserFields,
): Promise<void> {
  await db.query(
    `insert into scim_users (id, brand_id, user_name, external_id, display_name, given_name,
       family_name, email, emails, active)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      brandId,
      f.userName,
      f.externalId,
      f.displayName,
      f.givenName,
      f.familyName,
      f.email,
      JSON.stringify(f.emails),
      f.active,
    ],
  );
}

export async function updateScimUser(db: Db, id: string, f: ScimUserFields): Promise<void> {
  await db.query(
    `update scim_users set user_name = $2, external_id = $3, display_name = $4, given_name = $5,
       family_name = $6, email = $7, emails = $8, active = $9, updated_at = now(),
       version = version + 1
      where id = $1`,
    [
      id,
      f.userName,
      f.externalId,
      f.displayName,
      f.givenName,
      f.familyName,
      f.email,
      JSON.stringify(f.emails),
      f.active,
    ],
  );
}

export async function setScimUserMember(
  db: Db,
  id: string,
  memberId: string | null,
): Promise<void> {
  await db.query(`update scim_users set member_id = $2 where id = $1`, [id, memberId]);
}

export async function deleteScimUserRow(db: Db, id: string): Promise<void> {
  // Its groups lose a member: a PATCH of one of them that read it with the user is stale.
  await db.query(
    `update scim_groups set version = version + 1
      where id in (select group_id from scim_group_members where user_id = $1)`,
    [id],
  );
  await db.query(`delete from scim_users where id = $1`, [id]);
}

/** Each user's groups (id and display name), for the users named. */
export async function selectGroupsOfUsers(
  db: Db,
  userIds: readonly string[],
): Promise<Map<string, { id: string; display: string; externalId: string | null }[]>> {
  const r = await db.query<{ user_id: string; id: string; display: string; external_id: string }>(
    `select m.user_id, g.id, g.display_name as display, g.external_id
       from scim_group_members m join scim_groups g on g.id = m.group_id
      where m.user_id = any($1::text[]) order by g.display_name, g.id`,
    [userIds],
  );
  const byUser = new Map<string, { id: string; display: string; externalId: string | null }[]>();
  for (const row of r.rows) {
    const list = byUser.get(row.user_id) ?? [];
    list.push({ id: row.id, display: row.display, externalId: row.external_id });
    byUser.set(row.user_id, list);
  }
  return byUser;
}

const GROUP_LOOKUP = `g.brand_id = $1 and ($2::text is null or g.id = $2)
        and ($3::text is null or lower(g.display_name) = lower($3))`;
const groupLookupArgs = (brandId: string, only: GroupLookup) => [
  brandId,
  only.id ?? null,
  only.displayName ?? null,
];

/** The brand's groups, oldest first, optionally one by id or display name; or a window. */
export async function selectScimGroups(
  db: Db,
  brandId: string,
  only: GroupLookup = {},
  window?: ListWindow,
): Promise<ScimGroupRow[]> {
  const r = await db.query<ScimGroupRow>(
    `select ${GROUP_COLUMNS} from scim_groups g where ${GROUP_LOOKUP}
      order by g.created_at, g.id
      ${window ? 'limit $4 offset $5' : ''}`,
    [...groupLookupArgs(brandId, only), ...(window ? [window.limit, window.offset] : [])],
  );
  return r.rows;
}

/** How many groups selectScimGroups answers without a window. */
export async function countScimGroups(db: Db, brandId: string, only: GroupLookup = {}) {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from scim_groups g where ${GROUP_LOOKUP}`,
    groupLookupArgs(brandId, only),
  );
  return r.rows[0]!.n;
}

/** Each group's members (user id and display), for the groups named. */
export async function selectMembersOfGroups(
  db: Db,
  groupIds: readonly string[],
): Promise<Map<string, { value: string; display: string }[]>> {
  const r = await db.query<{ group_id: string; value: string; display: string }>(
    `select m.group_id, u.id as value, coalesce(nullif(u.display_name, ''), u.user_name) as display
       from scim_group_members m join scim_users u on u.id = m.user_id
      where m.group_id = any($1::text[]) order by u.user_name, u.id`,
    [groupIds],
  );
  const byGroup = new Map<string, { value: string; display: string }[]>();
  for (const row of r.rows) {
    const list = byGroup.get(row.group_id) ?? [];
    list.push({ value: row.value, display: row.display });
    byGroup.set(row.group_id, list);
  }
  return byGroup;
}

export async function lockScimGroup(
  db: PoolClient,
  brandId: string,
  id: string,
): Promise<ScimGroupRow | undefined> {
  const r = await db.query<ScimGroupRow>(
    `select ${GROUP_COLUMNS} from scim_groups g where g.brand_id = $1 and g.id = $2 for update`,
    [brandId, id],
  );
  return r.rows[0];
}

export async function upsertScimGroup(
  db: Db,
  g: { id: string; brandId: string; displayName: string; externalId: string | null },
): Promise<void> {
  await db.query(
    `insert into scim_groups (id, brand_id, display_name, external_id) values ($1, $2, $3, $4)
     on conflict (id) do update set display_name = excluded.display_name,
       external_id = excluded.external_id, updated_at = now(),
       version = scim_groups.version + 1`,
    [g.id, g.brandId, g.displayName, g.externalId],
  );
}

/**
 * Makes the group's members exactly these users; answers the users who joined or left (their
 * roles are derived again).
 */
export async function replaceGroupMembers(
  db: PoolClient,
  groupId: string,
  userIds: readonly string[],
): Promise<string[]> {
  const left = await db.query<{ user_id: string }>(
    `delete from scim_group_members where group_id = $1 and user_id <> all($2::text[])
     returning user_id`,
    [groupId, userIds],
  );
  const joined = await db.query<{ user_id: string }>(
    `insert into scim_group_members (group_id, user_id)
     select $1, u from unnest($2::text[]) as u on conflict do nothing returning user_id`,
    [groupId, userIds],
  );
  return [...left.rows, ...joined.rows].map((r) => r.user_id);
}

/** Deletes a group; answers its members (their roles are derived again). */
export async function deleteScimGroupRow(db: PoolClient, groupId: string): Promise<string[]> {
  const members = await db.query<{ user_id: string }>(
    `select user_id from scim_group_members where group_id = $1`,
    [groupId],
  );
  await db.query(`delete from scim_groups where id = $1`, [groupId]);
  return members.rows.map((r) => r.user_id);
}

/** Which of these ids are users of the brand. */
export async function selectUserIdsOfBrand(
  db: Db,
  brandId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const r = await db.query<{ id: string }>(
    `select id from scim_users where brand_id = $1 and id = any($2::text[])`,
    [brandId, ids],
  );
  return new Set(r.rows.map((row) => row.id));
}
