import type { Endpoint } from '../endpoint';
import { campaignPlansPath, type PlansDeps } from './leanPath';
import { mountCampaignPlans } from './route';

export { describeV1CampaignPlans } from './openApi';

/**
 * POST /api/v1/campaign-plans (docs/contract.md#campaign-plans): its lean path (leanPath.ts),
 * the one implementation of the POST, through its input (input.ts); the 405 of every other
 * method (route.ts); its OpenAPI operation (openApi.ts).
 */
export function v1CampaignPlansEndpoint(deps: PlansDeps): Endpoint {
  return { lean: campaignPlansPath(deps), mount: mountCampaignPlans };
}
