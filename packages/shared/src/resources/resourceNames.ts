/** The six readable resources, in the contract's order (docs/contract.md#resources). */
export const RESOURCES = [
  'campaigns',
  'submissions',
  'payouts',
  'deposits',
  'conversions',
  'links',
] as const;

export type ResourceName = (typeof RESOURCES)[number];
