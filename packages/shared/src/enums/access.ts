import { BrandTier, Environment, KeyOverlap, Role } from '@brand/proto/access/v1';
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

/** Tiers that include API access (docs/contract.md#authentication: Plus or above). */
export type PaidTier = Exclude<TierName, 'free'>;
export function isPaidTier(tier: TierName): tier is PaidTier {
  return tier !== 'free';
}

/**
 * Requests a minute per brand (docs/contract.md#limits), shared by all its keys, gateway instances, REST and
 * assistant calls. The gateway enforces it; the console draws it against the usage chart.
 */
export const TIER_RATE_LIMITS: Record<PaidTier, number> = {
  plus: 60,
  pro: 120,
  enterprise: 240,
};

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

/** How long a rolled key keeps working next to its replacement: the owner picks one. */
export const KEY_OVERLAPS = enumTable({
  now: KeyOverlap.KEY_OVERLAP_NONE,
  '1h': KeyOverlap.KEY_OVERLAP_ONE_HOUR,
  '24h': KeyOverlap.KEY_OVERLAP_ONE_DAY,
  '7d': KeyOverlap.KEY_OVERLAP_SEVEN_DAYS,
} as const satisfies Record<string, KeyOverlap>);
export type KeyOverlapName = (typeof KEY_OVERLAPS.names)[number];

/** Each overlap in seconds; the old key's expiry is the database's now() plus this. */
export const KEY_OVERLAP_SECONDS: Record<KeyOverlapName, number> = {
  now: 0,
  '1h': 3_600,
  '24h': 86_400,
  '7d': 7 * 86_400,
};
