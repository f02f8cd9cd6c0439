import type { AccessGate } from '../../auth/accessGate';
import type { PlansApi } from '../../clients/plansClient';
import type { Endpoint } from '../endpoint';
import { mountCampaignPlans } from './route';

export { describeV1CampaignPlans } from './openApi';

/**
 * POST /api/v1/campaign-plans (docs/contract.md#campaign-plans): the route (route.ts), its input (input.ts) and its
 * OpenAPI operation (openApi.ts). Express: plans are rare next to pages.
 */
export function v1CampaignPlansEndpoint(deps: { gate: AccessGate; plans: PlansApi }): Endpoint {
  return { mount: (router) => mountCampaignPlans(router, deps) };
}
