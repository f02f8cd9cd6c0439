import { insertActivity, type Auditor } from '@brand/shared/activity';
import { SQLSTATE, sqlState, withTransaction, type Pool } from '@brand/shared/db';
import type { PlanStatusName } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import type { Logger } from '@brand/shared/logger';
import { canonicalHash, type PlanInput } from '@brand/shared/plans';
import { BrandGate } from './brandGate';
import { decodePageToken, encodePageToken } from './pageToken';
import {
  countPendingPlans,
  finishPendingPlan,
  insertPlan,
  lockBrandPlans,
  selectPlan,
  selectPlanByRequest,
  selectPlans,
  type PlanRow,
} from './planRepo';

export interface PlanDeps {
  pool: Pool;
  log: Logger;
  /** Pending plans a brand may hold (PENDING_PLAN_LIMIT). */
  pendingLimit: number;
}

export interface Prepared {
  plan: PlanRow;
  /** True when the plan already existed for this request_id and identical input. */
  replayed: boolean;
}

/** The answer for a request_id that already has a plan: a replay, or request_conflict. */
function replayOrConflict(existing: PlanRow, inputHash: string): Prepared {
  if (existing.input_hash !== inputHash) {
    throw new AppError(
      'request_conflict',
      `request_id ${existing.request_id} was already used with different input (plan ${existing.id}). ` +
        'Retry with the identical input to get that plan, or use a new request_id for a new plan.',
    );
  }
  if (existing.status === 'cancelled') {
    throw new AppError(
      'request_conflict',
      `The plan prepared under request_id ${existing.request_id} (${existing.id}) was cancelled. ` +
        'Use a new request_id to prepare a new plan.',
    );
  }
  return { plan: existing, replayed: true };
}

/**
 * How long a new plan waits for its brand's turn (in memory, then for the brand's lock in the
 * database), in all. Making a plan holds the lock for milliseconds, so a longer wait means a
 * stuck or flooding holder; the waiter is answered, well inside the gateway's 3 s deadline,
 * with a retryable service_unavailable instead of holding a pooled connection.
 */
const PREPARE_WAIT_MS = 1_000;

/** One brand's turn at a time in this process: its burst holds one pooled connection, not ten. */
const brandGate = new BrandGate();

function brandBusy(cause?: unknown): AppError {
  return new AppError(
    'service_unavailable',
    'Another request of this brand is preparing a campaign plan and it is taking long; ' +
      'retry shortly with the same request_id.',
    { cause, retryAfterSeconds: 1 },
  );
}

/**
 * Prepares a pending plan for `brandId`, exactly once per (brand, request_id):
 * - a request_id already used with the identical canonical input replays that plan
 *   (whichever key of the brand asks, and even when the brand is at its pending limit);
 * - other input under it, or a cancelled plan, is request_conflict;
 * - otherwise, under a per-brand lock, the pending count is checked and the plan inserted,
 *   so concurrent identical requests make one plan and the limit cannot be overshot. A request
 *   that cannot have the lock within PREPARE_WAIT_MS is service_unavailable (Retry-After 1).
 * Throws pending_plan_limit when the brand already holds `pendingLimit` pending plans.
 * Nothing is published, funded or approved: the plan only prefills the brand's wizard.
 */
export async function preparePlan(
  deps: PlanDeps,
  brandId: string,
  input: PlanInput,
): Promise<Prepared> {
  const inputHash = canonicalHash(input);
  // Replays, the common retry, are answered without taking the brand's lock.
  const existing = await selectPlanByRequest(deps.pool, brandId, input.request_id);
  if (existing) return replayOrConflict(existing, inputHash);

  const deadline = Date.now() + PREPARE_WAIT_MS;
  const endTurn = await brandGate.enter(brandId, deadline);
  if (!endTurn) throw brandBusy();
  try {
    return await createUnderLock(deps, brandId, input, inputHash, deadline);
  } catch (err) {
    throw sqlState(err) === SQLSTATE.lockNotAvailable ? brandBusy(err) : err;
  } finally {
    endTurn();
  }
}

async function createUnderLock(
  deps: PlanDeps,
  brandId: string,
  input: PlanInput,
  inputHash: string,
  deadline: number,
): Promise<Prepared> {
  return withTransaction(deps.pool, async (client) => {
    await lockBrandPlans(client, brandId, deadline - Date.now());
    // Read again under the lock: a concurrent request may have just created it.
    const raced = await selectPlanByRequest(client, brandId, input.request_id);
    if (raced) return replayOrConflict(raced, inputHash);
    const pending = await countPendingPlans(client, brandId);
    if (pending >= deps.pendingLimit) {
      throw new AppError(
        'pending_plan_limit',
        `This brand already has ${pending} pending campaign plans, the limit is ${deps.pendingLimit}. ` +
          'Free room by completing or cancelling pending plans in the campaign wizard ' +
          '(operators: `brandctl plan list --brand <id> --status pending`, then `brandctl plan cancel <plan_id>`), ' +
          'then retry with the same request_id.',
      );
    }
    const plan = await insertPlan(client, { id: newId('campaignPlan'), brandId, inputHash, input });
    if (plan) return { plan, replayed: false };
    // Unreachable while every writer takes the lock; the constraint still decides if not.
    const winner = await selectPlanByRequest(client, brandId, input.request_id);
    return replayOrConflict(winner!, inputHash);
  });
}

/** One plan by id; not_found when none. */
export async function getPlan(deps: PlanDeps, planId: string): Promise<PlanRow> {
  const plan = await selectPlan(deps.pool, planId);
  if (!plan) throw new AppError('not_found', `No campaign plan has the id ${planId}.`);
  return plan;
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/**
 * One page of a brand's plans, newest first; next_page_token only when the page is full;
 * with the brand's pending count against its limit, whatever the status filter.
 */
export async function listPlans(
  deps: PlanDeps,
  q: { brandId: string; status?: PlanStatusName; pageSize?: number; pageToken?: string },
): Promise<{ plans: PlanRow[]; nextPageToken?: string; pendingCount: number }> {
  const limit = q.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AppError('invalid_parameter', `page_size must be 1..${MAX_PAGE_SIZE}.`);
  }
  const after = q.pageToken === undefined ? undefined : decodePageToken(q.pageToken);
  const plans = await selectPlans(deps.pool, { ...q, limit, after });
  const last = plans.at(-1);
  return {
    plans,
    pendingCount: await countPendingPlans(deps.pool, q.brandId),
    nextPageToken: plans.length === limit && last ? encodePageToken(last) : undefined,
  };
}

/**
 * Ends a pending plan as cancelled or completed. Repeating the same change returns the plan
 * unchanged (`changed` false); the other terminal state is precondition_failed; an unknown
 * id is not_found.
 */
export async function finishPlan(
  deps: PlanDeps,
  planId: string,
  to: 'cancelled' | 'completed',
  audit: Auditor,
): Promise<{ plan: PlanRow; changed: boolean }> {
  const changed = await withTransaction(deps.pool, async (db) => {
    const row = await finishPendingPlan(db, planId, to);
    if (row) {
      await insertActivity(db, {
        brandId: row.brand_id,
        action: `plan.${to}`,
        actorMemberId: audit.memberId,
        actorEmail: audit.email,
        subjectId: row.id,
        summary: `${row.title} (${row.campaign_type})`,
      });
    }
    return row;
  });
  if (changed) {
    deps.log.info({ plan_id: planId, brand_id: changed.brand_id, status: to }, 'plan finished');
    return { plan: changed, changed: true };
  }
  const plan = await getPlan(deps, planId);
  if (plan.status === to) return { plan, changed: false };
  throw new AppError(
    'precondition_failed',
    `Plan ${planId} is ${plan.status}; only a pending plan can be ${to}.`,
  );
}
