// One table per proto enum.
export { enumTable, type EnumTable } from './enumTable';
export {
  ENVIRONMENTS,
  isPaidTier,
  ROLES,
  TIERS,
  type EnvironmentName,
  type PaidTier,
  type RoleName,
  type TierName,
} from './access';
export { RESOURCE_ENUM } from './records';
export { EVENT_TYPES, type EventTypeName } from './events';
export { CAMPAIGN_TYPES, PLAN_STATUSES, type CampaignTypeName, type PlanStatusName } from './plans';
