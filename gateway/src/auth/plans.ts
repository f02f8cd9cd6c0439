import { Plan } from '@brand/proto/access/v1';
import type { PaidPlan, PlanName } from './identity';

const PLAN_NAMES: Record<number, PlanName> = {
  [Plan.PLAN_FREE]: 'free',
  [Plan.PLAN_PLUS]: 'plus',
  [Plan.PLAN_PRO]: 'pro',
  [Plan.PLAN_ENTERPRISE]: 'enterprise',
};

export function planNameOf(plan: number): PlanName | undefined {
  return PLAN_NAMES[plan];
}

/** Requests a minute per brand (SPEC 8), shared by all its keys, instances, REST and MCP. */
export const PLAN_RATE_LIMITS: Record<PaidPlan, number> = {
  plus: 60,
  pro: 120,
  enterprise: 240,
};
