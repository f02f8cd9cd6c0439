import type { PaidTier, TierName } from '@brand/shared/enums';

/** Who a request acts for, resolved from its key. The brand comes from the key alone (docs/contract.md#scope-and-rules). */
export interface Identity {
  keyId: string;
  brandId: string;
  tier: TierName;
  /** Opt-in permissions the key holds (reading records needs none). */
  permissions: ReadonlySet<string>;
  /**
   * The key's expiry in epoch milliseconds, if it has one (a rolled key's overlap, or an
   * expiry given at creation): the cache refuses to serve the identity from that instant.
   */
  expiresAtMs?: number;
}

/** An identity admitted to the API: its brand is on a tier with API access. */
export type ApiIdentity = Identity & { tier: PaidTier };
