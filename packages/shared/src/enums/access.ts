import { BrandTier, Environment, Role } from '@brand/proto/access/v1';
import { enumTable } from './enumTable';

/**
 * A brand's subscription tier, lowest first. The contract says "plan" ("Plus plan or
 * above"); in code it is a tier, so that "plan" only ever means a campaign plan.
 */
export const TIERS = enumTable({
  free: BrandTier.BRAND_TIER_FREE,
  plus: BrandTier.BRAND_TIER_PLUS,
  pro: BrandTier.BRAND_TIER_PRO,
  enterprise: BrandTier.BRAND_TIER_ENTERPRISE,
} as const satisfies Record<string, BrandTier>);
export type TierName = (typeof TIERS.names)[number];

/** Tiers that include API access (SPEC 5.2: Plus or above). */
export type PaidTier = Exclude<TierName, 'free'>;
export function isPaidTier(tier: TierName): tier is PaidTier {
  return tier !== 'free';
}

export const ROLES = enumTable({
  owner: Role.ROLE_OWNER,
  admin: Role.ROLE_ADMIN,
  member: Role.ROLE_MEMBER,
} as const satisfies Record<string, Role>);
export type RoleName = (typeof ROLES.names)[number];

/** Key environments; a deployment serves one, and keys of the other are invalid_key there. */
export const ENVIRONMENTS = enumTable({
  live: Environment.ENVIRONMENT_LIVE,
  test: Environment.ENVIRONMENT_TEST,
} as const satisfies Record<string, Environment>);
export type EnvironmentName = (typeof ENVIRONMENTS.names)[number];
