import type { Router } from 'express';
import { roleAllows } from '@brand/shared/console';
import { PLAN_STATUSES, type PlanStatusName } from '@brand/shared/enums';
import type { ConsoleDeps } from '../../consoleDeps';
import { memberOf, notFound, viewerOf } from '../../session/memberSession';
import { sendPage } from '../../views/render';
import { PlansPage } from './view';

const PLAN_ID = /^pln_[A-Za-z0-9]{1,64}$/;

/** Campaign plans by status, the pending count against the limit, and cancel (plans service). */
export function registerPlans(router: Router, deps: ConsoleDeps): void {
  router.get('/plans', async (req, res) => {
    const s = memberOf(res);
    const wanted = typeof req.query.status === 'string' ? req.query.status : 'pending';
    const status: PlanStatusName = (PLAN_STATUSES.names as readonly string[]).includes(wanted)
      ? (wanted as PlanStatusName)
      : 'pending';
    const page = typeof req.query.page === 'string' ? req.query.page.slice(0, 512) : undefined;
    const answer = await deps.clients.plans(
      'listPlans',
      {
        brand_id: s.brand.id,
        status: PLAN_STATUSES.toProto(status),
        page_size: 50,
        page_token: page,
      },
      { assertion: s.assertion },
    );
    sendPage(
      res,
      PlansPage({
        viewer: viewerOf(s),
        status,
        plans: answer.plans,
        pendingCount: answer.pending_count,
        pendingLimit: answer.pending_limit || 200,
        nextPageToken: answer.next_page_token,
        canCancel: roleAllows(s.role, 'plans.cancel'),
        notice: req.query.cancelled === '1' ? 'The plan is cancelled.' : undefined,
      }),
    );
  });

  router.post('/plans/:planId/cancel', async (req, res) => {
    const s = memberOf(res);
    const planId = String(req.params.planId);
    if (!PLAN_ID.test(planId)) throw notFound();
    await deps.clients.plans('cancelPlan', { plan_id: planId }, { assertion: s.assertion });
    res.redirect(303, `/brands/${s.brand.id}/plans?status=pending&cancelled=1`);
  });
}
