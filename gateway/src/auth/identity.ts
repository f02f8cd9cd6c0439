import type { PaidTier, TierName } from '@brand/shared/enums';

/** Who a request acts for, resolved from its key. The brand comes from the key alone (SPEC 1.1). */
export interface Identity {
  keyId: string;
  brandId: string;
  tier: TierName;
  /** Opt-in permissions the key holds (reading records needs none). */
  permissions: ReadonlySet<string>;
}

/** An identity admitted to the API: its brand is on a tier with API access. */
export type ApiIdentity = Identity & { tier: PaidTier };

/** Requests a minute per brand (SPEC 8), shared by all its keys, instances, REST and MCP. */
export const TIER_RATE_LIMITS: Record<PaidTier, number> = {
  plus: 60,
  pro: 120,
  enterprise: 240,
};
