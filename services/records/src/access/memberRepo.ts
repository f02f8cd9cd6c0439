import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';
import type { RoleName } from '@brand/shared/enums';
import type { BrandRow, MemberRow } from './brandRepo';

type Db = Pool | PoolClient;

const MEMBER_COLUMNS = `m.id, m.brand_id, m.email, m.role, ${rfc3339('m.created_at')} as created_at,
  m.managed_by`;

/** A current member with its brand, as signing in and resolving sessions need them. */
export interface Membership {
  brand: BrandRow;
  member: MemberRow;
}

type MembershipRow = MemberRow & {
  b_id: string;
  b_name: string;
  b_tier: BrandRow['tier'];
  b_verified: boolean;
  b_created_at: string;
  b_sign_in_policy: BrandRow['sign_in_policy'];
};

const toMembership = (r: MembershipRow): Membership => ({
  member: {
    id: r.id,
    brand_id: r.brand_id,
    email: r.email,
    role: r.role,
    created_at: r.created_at,
  },
  brand: {
    id: r.b_id,
    name: r.b_name,
    tier: r.b_tier,
    verified: r.b_verified,
    created_at: r.b_created_at,
    sign_in_policy: r.b_sign_in_policy,
  },
});

/**
 * Every current membership of an address, brand name order. Eligibility (Plus or above,
 * verified) is decided by the caller from the brand, in one place (sessions/eligibility.ts).
 */
export async function selectMemberships(db: Db, email: string): Promise<Membership[]> {
  const r = await db.query<MembershipRow>(
    `select ${MEMBER_COLUMNS}, b.id as b_id, b.name as b_name, b.tier as b_tier,
            b.verified as b_verified, ${rfc3339('b.created_at')} as b_created_at,
            b.sign_in_policy as b_sign_in_policy
     from brand_members m join brands b on b.id = m.brand_id
     where m.email = $1 and m.removed_at is null
     order by b.name, b.id`,
    [email],
  );
  return r.rows.map(toMembership);
}

/** A current (not removed) member by id. */
export async function selectCurrentMember(db: Db, id: string): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `select ${MEMBER_COLUMNS} from brand_members m where m.id = $1 and m.removed_at is null`,
    [id],
  );
  return r.rows[0];
}

/** A brand's current members, oldest first, with when and how each last used this brand. */
export async function selectCurrentMembers(db: Db, brandId: string): Promise<MemberRow[]> {
  const r = await db.query<MemberRow>(
    `select ${MEMBER_COLUMNS}, ${rfc3339('m.last_used_at')} as last_used_at,
            m.last_used_method
     from brand_members m
     where m.brand_id = $1 and m.removed_at is null order by m.created_at, m.id`,
    [brandId],
  );
  return r.rows;
}

/** The addresses of a brand's current owners, oldest owner first. */
export async function selectOwnerEmails(db: Db, brandId: string): Promise<string[]> {
  const r = await db.query<{ email: string }>(
    `select email from brand_members
     where brand_id = $1 and role = 'owner' and removed_at is null order by created_at, id`,
    [brandId],
  );
  return r.rows.map((row) => row.email);
}

/**
 * Adds a member, or brings a removed one back with the new role. Returns undefined when the
 * address is already a current member.
 */
export async function insertOrRestoreMember(
  db: Db,
  m: { id: string; brandId: string; email: string; role: RoleName },
): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `insert into brand_members as m (id, brand_id, email, role) values ($1, $2, $3, $4)
     on conflict (brand_id, email) do update
       set role = excluded.role, removed_at = null, created_at = now(), managed_by = null
       where m.removed_at is not null
     returning ${MEMBER_COLUMNS}`,
    [m.id, m.brandId, m.email, m.role],
  );
  return r.rows[0];
}

/**
 * Locks the brand's row so that concurrent role changes and removals of its members run one
 * at a time: the last-owner rule reads the owners after the lock.
 */
export async function lockBrandMembers(db: PoolClient, brandId: string): Promise<void> {
  await db.query('select 1 from brands where id = $1 for update', [brandId]);
}

export async function countOwners(db: Db, brandId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select count(*)::int as n from brand_members
     where brand_id = $1 and role = 'owner' and removed_at is null`,
    [brandId],
  );
  return r.rows[0]!.n;
}

export async function updateMemberRole(
  db: Db,
  id: string,
  role: RoleName,
): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `update brand_members m set role = $2 where m.id = $1 and m.removed_at is null
     returning ${MEMBER_COLUMNS}`,
    [id, role],
  );
  return r.rows[0];
}

export async function markMemberRemoved(db: Db, id: string): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `update brand_members m set removed_at = now() where m.id = $1 and m.removed_at is null
     returning ${MEMBER_COLUMNS}`,
    [id],
  );
  return r.rows[0];
}

/**
 * A session of the member acted at the brand: when and how, for the members page. Called at a
 * session's first act at the brand and then at most once a minute (sessionRepo's step).
 */
export async function markMemberUsed(db: Db, memberId: string, method: string): Promise<void> {
  await db.query(
    `update brand_members set last_used_at = now(), last_used_method = $2 where id = $1`,
    [memberId, method],
  );
}

/** The address's current membership of the brand, or undefined. */
export async function selectCurrentMemberOf(
  db: Db,
  brandId: string,
  email: string,
): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `select ${MEMBER_COLUMNS} from brand_members m
      where m.brand_id = $1 and m.email = $2 and m.removed_at is null`,
    [brandId, email],
  );
  return r.rows[0];
}
