import { CampaignType, PlanStatus } from '@brand/proto/plans/v1';
import { enumTable } from './enumTable';

/** Campaign types of docs/contract.md#plan-input, in the contract's order; each opens its own review workspace. */
export const CAMPAIGN_TYPES = enumTable({
  blitz: CampaignType.CAMPAIGN_TYPE_BLITZ,
  ugc: CampaignType.CAMPAIGN_TYPE_UGC,
  package: CampaignType.CAMPAIGN_TYPE_PACKAGE,
  affiliate: CampaignType.CAMPAIGN_TYPE_AFFILIATE,
} as const satisfies Record<string, CampaignType>);
export type CampaignTypeName = (typeof CAMPAIGN_TYPES.names)[number];

/** Plan states (docs/contract.md#idempotency): only pending plans count toward the pending limit. */
export const PLAN_STATUSES = enumTable({
  pending: PlanStatus.PLAN_STATUS_PENDING,
  cancelled: PlanStatus.PLAN_STATUS_CANCELLED,
  completed: PlanStatus.PLAN_STATUS_COMPLETED,
} as const satisfies Record<string, PlanStatus>);
export type PlanStatusName = (typeof PLAN_STATUSES.names)[number];
