export {
  PLAN_LIMITS,
  PLATFORMS,
  PlanInputMessageSchema,
  PlanInputSchema,
  toPlanInputBody,
  type PlanInput,
  type PlanInputBody,
  type PlatformName,
} from './input';
export { canonicalHash, canonicalJson } from './canonical';
export {
  formatCentavos,
  MAX_PLANNING_BUDGET_CENTAVOS,
  parseBudget,
  type BudgetResult,
} from './budget';
export { dateProblem, MAX_PLAN_DATE, MIN_PLAN_DATE } from './dates';
export { REVIEW_WORKSPACES, reviewPathFor } from './reviewPath';
