import type { PaidTier, TierName } from '@brand/shared/enums';
import type { NetworkMatcher } from '@brand/shared/keys';

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
  /**
   * The key's allowed networks, compiled when the identity was cached (issue 63); undefined
   * for a key that works from any network, so such a key's requests do no work for it.
   */
  fromNetworks?: NetworkMatcher;
}

/** An identity admitted to the API: its brand is on a tier with API access. */
export type ApiIdentity = Identity & { tier: PaidTier };
