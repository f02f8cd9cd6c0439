import type { Plan, PlansServiceServer } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES, PLAN_STATUSES } from '@brand/shared/enums';
import { auditorOf, listActivity } from '@brand/shared/activity';
import { authorize, type Actor, type ConsoleAction } from '@brand/shared/console';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import type { RpcBuilder } from '@brand/shared/grpc';
import { PlanInputMessageSchema, reviewPathFor } from '@brand/shared/plans';
import {
  finishFailure,
  prepareFailure,
  type FinishOutcome,
  type PlanObserver,
  type PrepareOutcome,
} from './planMetrics';
import { finishPlan, getPlan, listPlans, preparePlan, type PlanDeps } from './planService';
import type { PlanRow } from './planRepo';

const BRAND_ID = /^br_[A-Za-z0-9]{1,64}$/;
const PLAN_ID = /^pln_[A-Za-z0-9]{1,64}$/;

/**
 * A plan as a message. `notes` is private: only the admin RPCs (the brand's owners, through
 * brandctl) pass withNotes; PreparePlan's answer never carries it.
 */
function toPlan(row: PlanRow, opts: { withNotes: boolean }): Plan {
  return {
    id: row.id,
    brand_id: row.brand_id,
    request_id: row.request_id,
    status: PLAN_STATUSES.toProto(row.status),
    campaign_type: CAMPAIGN_TYPES.toProto(row.campaign_type),
    title: row.title,
    goal: row.goal,
    planned_for: row.planned_for,
    review_on: row.review_on,
    planning_budget_amount: row.planning_budget_amount,
    summary: row.summary ?? undefined,
    brief: row.brief ?? undefined,
    requirements: row.requirements,
    platforms: row.platforms,
    review_path: reviewPathFor(row.campaign_type, row.id),
    created_at: row.created_at,
    updated_at: row.updated_at,
    notes: opts.withNotes ? (row.notes ?? undefined) : undefined,
  };
}

/** Runs a call and reports its outcome, whether it answered or threw. */
async function counted<T, O>(
  call: () => Promise<T>,
  success: (result: T) => O,
  failure: (err: unknown) => O,
  report: (outcome: O) => void,
): Promise<T> {
  try {
    const result = await call();
    report(success(result));
    return result;
  } catch (err) {
    report(failure(err));
    throw err;
  }
}

function requireId(value: string, pattern: RegExp, field: string, kind: string): string {
  if (pattern.test(value)) return value;
  const message = `must be a ${kind} id.`;
  throw new AppError('validation_failed', `${field}: ${message}`, {
    details: [{ field, message }],
  });
}

/**
 * Loads a plan for an action, refusing another brand's plan exactly as a missing one
 * (not_found, the same message), never with a 403 that would confirm it exists.
 */
async function authorizedPlan(
  deps: PlanDeps,
  actor: Actor,
  action: ConsoleAction,
  planId: string,
): Promise<PlanRow> {
  const id = requireId(planId, PLAN_ID, 'plan_id', 'plan (pln_...)');
  const plan = await getPlan(deps, id);
  authorize(actor, action, plan.brand_id, () => {
    return new AppError('not_found', `No campaign plan has the id ${id}.`);
  });
  return plan;
}

const authorizeBrand = (actor: Actor, action: ConsoleAction, brandId: string): void =>
  authorize(actor, action, brandId, () => new AppError('not_found', `No brand ${brandId}.`));

/**
 * The PlansService implementation. PreparePlan is the gateway's data-plane call (internal
 * credential); CompletePlan is operators' (admin token, brandctl); reading, cancelling and
 * the activity are the Developers area (the admin token, or the console for a member,
 * authorized against the plan's own brand and the permission table). Nothing here approves,
 * funds, pays or publishes anything (docs/contract.md#scope-and-rules).
 */
export function plansHandlers(
  deps: PlanDeps,
  rpc: RpcBuilder,
  observer?: PlanObserver,
): PlansServiceServer {
  const finish = (planId: string, to: 'cancelled' | 'completed', actor: Actor) =>
    counted(
      async () => {
        const id = requireId(planId, PLAN_ID, 'plan_id', 'plan (pln_...)');
        if (actor.kind === 'member') await authorizedPlan(deps, actor, 'plans.cancel', id);
        return finishPlan(deps, id, to, auditorOf(actor));
      },
      (res): FinishOutcome => (res.changed ? 'changed' : 'unchanged'),
      finishFailure,
      (outcome) => observer?.finished(to === 'cancelled' ? 'cancel' : 'complete', outcome),
    ).then(({ plan }) => ({ plan: toPlan(plan, { withNotes: true }) }));
  return {
    preparePlan: rpc.internal('PreparePlan', (req) =>
      counted(
        async () => {
          const brandId = requireId(req.brand_id, BRAND_ID, 'brand_id', 'brand (br_...)');
          if (!req.input) throw new AppError('validation_failed', 'input is required.');
          // Validated as it arrives: this API is a contract of its own and trusts no caller's checks.
          const input = parseOrThrow(PlanInputMessageSchema, req.input);
          const { plan, replayed } = await preparePlan(deps, brandId, input);
          return { plan: toPlan(plan, { withNotes: false }), replayed };
        },
        (res): PrepareOutcome => (res.replayed ? 'replayed' : 'created'),
        prepareFailure,
        (outcome) => observer?.prepared(outcome),
      ),
    ),
    getPlan: rpc.developers('GetPlan', async (req, { actor }) => ({
      plan: toPlan(await authorizedPlan(deps, actor, 'plans.read', req.plan_id), {
        withNotes: true,
      }),
    })),
    listPlans: rpc.developers('ListPlans', async (req, { actor }) => {
      authorizeBrand(actor, 'plans.read', req.brand_id);
      const brandId = requireId(req.brand_id, BRAND_ID, 'brand_id', 'brand (br_...)');
      const page = await listPlans(deps, {
        brandId,
        status: PLAN_STATUSES.fromProto(req.status),
        pageSize: req.page_size,
        pageToken: req.page_token,
      });
      return {
        plans: page.plans.map((p) => toPlan(p, { withNotes: true })),
        next_page_token: page.nextPageToken,
        pending_count: page.pendingCount,
        pending_limit: deps.pendingLimit,
      };
    }),
    cancelPlan: rpc.developers('CancelPlan', (req, { actor }) =>
      finish(req.plan_id, 'cancelled', actor),
    ),
    completePlan: rpc.admin('CompletePlan', (req, { actor }) =>
      finish(req.plan_id, 'completed', actor),
    ),
    listActivity: rpc.developers('ListActivity', async (req, { actor }) => {
      authorizeBrand(actor, 'activity.read', req.brand_id);
      return listActivity(deps.pool, req);
    }),
  };
}
