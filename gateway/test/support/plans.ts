import { makeBrandWithKey, type Stack } from '@brand/testkit';
import type { ApiClient, ApiResponse } from './apiClient';

/** Helpers for the campaign-plan tests (issue 8). */

export const PLANS_PATH = '/api/v1/campaign-plans';

/** The public plan result, as the tests read it. */
export interface PlanOut {
  id: string;
  request_id: string;
  status: string;
  campaign_type: string;
  planning_budget: string;
  planning_budget_amount: number;
  review_path: string;
  [field: string]: unknown;
}

export interface PlanBrand {
  brandId: string;
  ownerEmail: string;
  /** A live key holding campaigns:prepare, and its id. */
  prepareKey: string;
  prepareKeyId: string;
  /** A live key without it (reads records only). */
  readKey: string;
}

/** A verified brand (Enterprise unless told: 240 requests a minute) with a prepare and a read key. */
export async function makePlanBrand(
  stack: Stack,
  tier: 'plus' | 'pro' | 'enterprise' = 'enterprise',
): Promise<PlanBrand> {
  const seeded = await makeBrandWithKey(stack.admin, {
    tier,
    keyName: 'Planner',
    permissions: ['campaigns:prepare'],
  });
  const read = await stack.admin.createKey({
    brandId: seeded.brand.id,
    actorEmail: seeded.owner.email,
    name: 'Reporting',
  });
  return {
    brandId: seeded.brand.id,
    ownerEmail: seeded.owner.email,
    prepareKey: seeded.secret,
    prepareKeyId: seeded.key.id,
    readKey: read.secret,
  };
}

/** POST /api/v1/campaign-plans with a JSON body. */
export function postPlan<T = PlanOut>(
  api: ApiClient,
  key: string,
  body: unknown,
): Promise<ApiResponse<T>> {
  return api.post<T>(PLANS_PATH, { key, body });
}

/** How many plans the brand has in the plans schema. */
export async function planRows(stack: Stack, brandId: string): Promise<number> {
  const r = await stack.db.pool.query('select 1 from plans.plans where brand_id = $1', [brandId]);
  return r.rowCount ?? 0;
}
