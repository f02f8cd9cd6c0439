// One table per proto enum; campaign types and plan states join when brand.plans.v1 lands.
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
