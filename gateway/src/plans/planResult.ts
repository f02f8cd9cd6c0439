import { z } from 'zod';
import type { Plan } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES, PLAN_STATUSES } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { formatCentavos, PLATFORMS } from '@brand/shared/plans';

/**
 * The public result of preparing a plan, over REST and MCP alike: the one source for the
 * OpenAPI response, the tool's outputSchema and the message-to-JSON mapping. It never has
 * `notes`: they are private to the brand (brandctl plan show).
 */
export const PlanResult = z
  .object({
    id: z
      .string()
      .meta({ description: 'Plan id (`pln_...`).', examples: ['pln_3kTMd9Q0bXh7RzL2aP1c'] }),
    request_id: z
      .string()
      .meta({ format: 'uuid', description: 'The request_id it was prepared under.' }),
    status: z.enum(PLAN_STATUSES.names).meta({
      description: 'pending until the brand completes it in the wizard, or it is cancelled.',
    }),
    campaign_type: z.enum(CAMPAIGN_TYPES.names),
    title: z.string(),
    goal: z.string(),
    planned_for: z.string().meta({ format: 'date', examples: ['2027-06-01'] }),
    review_on: z.string().meta({ format: 'date', examples: ['2027-05-15'] }),
    planning_budget: z.string().meta({
      description: 'PHP with two decimals, as a string.',
      examples: ['25000.50'],
    }),
    planning_budget_amount: z
      .number()
      .int()
      .positive()
      .meta({ description: 'The same budget in integer centavos.', examples: [2500050] }),
    currency: z.literal('PHP'),
    summary: z.string().nullable(),
    brief: z.string().nullable(),
    requirements: z.array(z.string()),
    platforms: z.array(z.enum(PLATFORMS)),
    review_path: z.string().meta({
      description:
        'Opens the prefilled wizard in the workspace of the type: blitz -> clipping, ugc -> ugc, package -> influencers, affiliate -> affiliate.',
      examples: ['/workspaces/ugc/plans/pln_3kTMd9Q0bXh7RzL2aP1c/review'],
    }),
    created_at: z
      .string()
      .meta({ format: 'date-time', description: 'RFC 3339, UTC, microseconds.' }),
    updated_at: z
      .string()
      .meta({ format: 'date-time', description: 'RFC 3339, UTC, microseconds.' }),
  })
  .meta({ id: 'CampaignPlan' });
export type PlanResult = z.infer<typeof PlanResult>;

const isPlatform = (p: string): p is (typeof PLATFORMS)[number] =>
  (PLATFORMS as readonly string[]).includes(p);

/** The plan message as the public JSON result. Notes are dropped even if a message had them. */
export function toPlanResult(plan: Plan | undefined): PlanResult {
  const status = plan && PLAN_STATUSES.fromProto(plan.status);
  const type = plan && CAMPAIGN_TYPES.fromProto(plan.campaign_type);
  if (!plan || !status || !type) {
    throw new AppError('internal_error', 'The plans service returned an incomplete plan.');
  }
  return {
    id: plan.id,
    request_id: plan.request_id,
    status,
    campaign_type: type,
    title: plan.title,
    goal: plan.goal,
    planned_for: plan.planned_for,
    review_on: plan.review_on,
    planning_budget: formatCentavos(plan.planning_budget_amount),
    planning_budget_amount: plan.planning_budget_amount,
    currency: 'PHP',
    summary: plan.summary ?? null,
    brief: plan.brief ?? null,
    requirements: plan.requirements,
    platforms: plan.platforms.filter(isPlatform),
    review_path: plan.review_path,
    created_at: plan.created_at,
    updated_at: plan.updated_at,
  };
}
