import { AppError, parseOrThrow } from '@brand/shared/errors';
import { PlanInputSchema } from '@brand/shared/plans';
import type { Identity } from '../auth/identity';
import type { PlansApi } from '../clients/plansClient';
import { toPlanResult, type PlanResult } from './planResult';

/** The opt-in permission a key needs to prepare plans (docs/contract.md#key-format-and-permissions). */
export const CAMPAIGNS_PREPARE = 'campaigns:prepare';

/** insufficient_permission unless the key holds campaigns:prepare (only live keys can). */
export function requirePreparePermission(identity: Identity): void {
  if (!identity.permissions.has(CAMPAIGNS_PREPARE)) {
    throw new AppError(
      'insufficient_permission',
      `Preparing campaign plans needs the ${CAMPAIGNS_PREPARE} permission; a brand owner can create a live key with it.`,
    );
  }
}

/**
 * Prepares a plan for the key's brand, the same way for REST and MCP: the permission
 * (insufficient_permission), the shared input schema (validation_failed with field
 * details), then the plans service, whose refusals (request_conflict, pending_plan_limit)
 * pass through with their codes. `replayed` is true when an earlier identical request made
 * the plan; the result is then identical to the first answer.
 */
export async function preparePlan(
  plans: PlansApi,
  identity: Identity,
  body: unknown,
  requestId: string,
): Promise<{ plan: PlanResult; replayed: boolean }> {
  requirePreparePermission(identity);
  const input = parseOrThrow(PlanInputSchema, body);
  const res = await plans.preparePlan(identity.brandId, input, requestId);
  return { plan: toPlanResult(res.plan), replayed: res.replayed };
}
