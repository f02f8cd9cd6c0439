import type { Router } from 'express';
import { methodNotAllowed } from '../../http/methodNotAllowed';
import { CAMPAIGN_PLANS_PATH } from './input';

/** Every method of /api/v1/campaign-plans but POST (leanPath.ts): 405 with `Allow: POST`. */
export function mountCampaignPlans(router: Router): void {
  router.all(CAMPAIGN_PLANS_PATH, methodNotAllowed(['POST']));
}
