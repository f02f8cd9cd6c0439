// One table per proto enum.
export { enumTable, type EnumTable } from './enumTable';
export {
  ENVIRONMENTS,
  isPaidTier,
  KEY_OVERLAP_SECONDS,
  KEY_OVERLAPS,
  TIER_RATE_LIMITS,
  ROLES,
  TIERS,
  type EnvironmentName,
  type KeyOverlapName,
  type PaidTier,
  type RoleName,
  type TierName,
} from './access';
export { RESOURCE_ENUM } from './records';
export { EVENT_TYPES, type EventTypeName } from './events';
export { CAMPAIGN_TYPES, PLAN_STATUSES, type CampaignTypeName, type PlanStatusName } from './plans';
