export type PlanName = 'free' | 'plus' | 'pro' | 'enterprise';

/** Who a request acts for, resolved from its key. The brand comes from the key alone (SPEC 1.1). */
export interface Identity {
  keyId: string;
  brandId: string;
  plan: PlanName;
  /** Opt-in permissions the key holds (reading records needs none). */
  permissions: ReadonlySet<string>;
}

/** Plans that include API access. */
export type PaidPlan = Exclude<PlanName, 'free'>;

/** An identity admitted to the API: its brand is on a plan with API access. */
export type ApiIdentity = Identity & { plan: PaidPlan };
