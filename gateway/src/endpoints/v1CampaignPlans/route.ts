import express, { type RequestHandler, type Router } from 'express';
import { AppError } from '@brand/shared/errors';
import type { AccessGate } from '../../auth/accessGate';
import type { PlansApi } from '../../clients/plansClient';
import { sendJson } from '../../http/jsonResponse';
import { methodNotAllowed } from '../../http/methodNotAllowed';
import { requestIdOf } from '../../http/requestScope';
import { identityOf, requireApiKey } from '../../prelude/admission';
import { preparePlan, requirePreparePermission } from '../../plans/preparePlan';
import { CAMPAIGN_PLANS_PATH, MAX_BODY_BYTES } from './input';

/**
 * JSON only, and parsed only after the key and its permission are checked, so anonymous
 * or read-only callers cannot make us parse. Body-parser errors become 4xx in errorHandler.
 */
const jsonBody: RequestHandler[] = [
  (req, _res, next) => {
    if (!req.is('application/json')) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
    }
    next();
  },
  express.json({ limit: MAX_BODY_BYTES, strict: false }),
];

/**
 * POST /api/v1/campaign-plans (docs/contract.md#campaign-plans): prepares a campaign plan for human review.
 * In order: the key and one unit of the brand's budget (requireApiKey: 401, 429), the
 * campaigns:prepare permission (403), JSON (415, 400), the input (400 validation_failed),
 * then the plans service: 201 with the new plan, or 200 with `Idempotent-Replayed: true`
 * and the identical plan for a retry; 409 request_conflict; 422 pending_plan_limit.
 */
export function mountCampaignPlans(
  router: Router,
  deps: { gate: AccessGate; plans: PlansApi },
): void {
  router.post(
    CAMPAIGN_PLANS_PATH,
    requireApiKey(deps.gate),
    (_req, res, next) => {
      deps.gate.requirePermission(identityOf(res), requirePreparePermission);
      next();
    },
    ...jsonBody,
    async (req, res) => {
      const { plan, replayed } = await preparePlan(
        deps.plans,
        identityOf(res),
        req.body,
        requestIdOf(res),
      );
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      sendJson(res, replayed ? 200 : 201, JSON.stringify(plan));
    },
  );
  router.all(CAMPAIGN_PLANS_PATH, methodNotAllowed(['POST']));
}
