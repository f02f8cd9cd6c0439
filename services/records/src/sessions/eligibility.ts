import { isPaidTier } from '@brand/shared/enums';
import type { Pool, PoolClient } from '@brand/shared/db';
import type { BrandRow } from '../access/brandRepo';
import { selectMemberships, type Membership } from '../access/memberRepo';

/**
 * Whether a brand's members may use the Developers area: the same conditions as creating a
 * key (docs/contract.md#authentication: Plus or above, verified). Read from the database on every sign-in and
 * every session resolve, so a tier drop takes effect on the next request.
 */
export function isEligible(brand: BrandRow): boolean {
  return isPaidTier(brand.tier) && brand.verified;
}

/** Why a brand is not eligible, for the refusal. */
export function ineligibleReason(brand: BrandRow): string {
  return isPaidTier(brand.tier)
    ? `${brand.name} is not verified yet; the Developers area opens once it is.`
    : `${brand.name} is on the ${brand.tier} plan; the Developers area needs Plus, Pro or Enterprise.`;
}

/** The eligible brands of an address: where it may use the Developers area. */
export async function eligibleMemberships(
  db: Pool | PoolClient,
  email: string,
): Promise<Membership[]> {
  return (await selectMemberships(db, email)).filter((m) => isEligible(m.brand));
}
