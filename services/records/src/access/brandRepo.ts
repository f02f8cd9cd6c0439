import type { Pool, PoolClient } from '@brand/shared/db';
import { rfc3339 } from '@brand/shared/db';
import type { RoleName, TierName } from '@brand/shared/enums';
import type { SignInPolicy } from '../signInPolicy/policy';

export interface BrandRow {
  id: string;
  name: string;
  tier: TierName;
  verified: boolean;
  created_at: string;
  /**
   * 'any'; 'passkey_or_sso': sessions opened by an emailed link are refused on it; 'sso': only
   * sessions opened by this brand's single sign-on open it.
   */
  sign_in_policy: SignInPolicy;
}

export interface MemberRow {
  id: string;
  brand_id: string;
  email: string;
  role: RoleName;
  created_at: string;
  /**
   * Read only for the member list (selectCurrentMembers): when a session of the member last
   * acted at this brand, and how that session was opened (never what they did elsewhere).
   */
  last_used_at?: string | null;
  last_used_method?: string | null;
  /** null: the brand's owners manage it; 'scim' or 'sso': the brand's identity provider. */
  managed_by?: string | null;
}

const BRAND_COLUMNS = `id, name, tier, verified, ${rfc3339('created_at')} as created_at, sign_in_policy`;
const MEMBER_COLUMNS = `id, brand_id, email, role, ${rfc3339('created_at')} as created_at`;

type Db = Pool | PoolClient;

export async function insertBrand(
  db: Db,
  brand: { id: string; name: string; tier: TierName; verified: boolean },
): Promise<BrandRow> {
  const r = await db.query<BrandRow>(
    `insert into brands (id, name, tier, verified) values ($1, $2, $3, $4) returning ${BRAND_COLUMNS}`,
    [brand.id, brand.name, brand.tier, brand.verified],
  );
  return r.rows[0]!;
}

export async function selectBrand(db: Db, id: string): Promise<BrandRow | undefined> {
  const r = await db.query<BrandRow>(`select ${BRAND_COLUMNS} from brands where id = $1`, [id]);
  return r.rows[0];
}

export async function selectBrands(db: Db): Promise<BrandRow[]> {
  const r = await db.query<BrandRow>(`select ${BRAND_COLUMNS} from brands order by created_at, id`);
  return r.rows;
}

/**
 * Sets the given fields only; returns undefined for an unknown brand. With the row as it is
 * now, the sign-in policy it had before (the row locked between the two).
 */
export async function updateBrand(
  db: Db,
  id: string,
  changes: {
    tier: TierName | undefined;
    verified: boolean | undefined;
    signInPolicy: SignInPolicy | undefined;
  },
): Promise<(BrandRow & { previous_sign_in_policy: SignInPolicy }) | undefined> {
  const r = await db.query<BrandRow & { previous_sign_in_policy: SignInPolicy }>(
    `with before as (
       select id as before_id, sign_in_policy as previous_sign_in_policy
       from brands where id = $1 for update
     )
     update brands set tier = coalesce($2, tier), verified = coalesce($3, verified),
       sign_in_policy = coalesce($4, sign_in_policy)
     from before where id = before_id
     returning ${BRAND_COLUMNS}, previous_sign_in_policy`,
    [id, changes.tier ?? null, changes.verified ?? null, changes.signInPolicy ?? null],
  );
  return r.rows[0];
}

export async function insertMember(
  db: Db,
  member: { id: string; brandId: string; email: string; role: RoleName },
): Promise<MemberRow> {
  const r = await db.query<MemberRow>(
    `insert into brand_members (id, brand_id, email, role) values ($1, $2, $3, $4) returning ${MEMBER_COLUMNS}`,
    [member.id, member.brandId, member.email, member.role],
  );
  return r.rows[0]!;
}

export async function selectMemberByEmail(
  db: Db,
  brandId: string,
  email: string,
): Promise<MemberRow | undefined> {
  const r = await db.query<MemberRow>(
    `select ${MEMBER_COLUMNS} from brand_members where brand_id = $1 and email = $2 and removed_at is null`,
    [brandId, email],
  );
  return r.rows[0];
}
