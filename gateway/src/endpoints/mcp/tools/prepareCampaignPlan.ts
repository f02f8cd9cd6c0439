import { PlanInputSchema } from '@brand/shared/plans';
import { PlanResult } from '../../../plans/planResult';
import { CAMPAIGNS_PREPARE, preparePlan } from '../../../plans/preparePlan';
import { structuredResult } from '../toolResult';
import { jsonSchema, type ToolDefinition } from '../toolDefinition';

const TITLE = 'Prepare a campaign plan for review';

/**
 * prepare_campaign_plan (docs/contract.md#plan-input, #assistant-endpoint): listed only for keys holding campaigns:prepare.
 * The same preparation as POST /api/v1/campaign-plans, through the same code: its
 * inputSchema is the shared zod schema's, its result the same plan (structuredContent and
 * the same JSON as text), and refusals are isError results with REST's codes. A replay
 * answers the identical plan.
 */
export const prepareCampaignPlanTool: ToolDefinition = {
  tool: {
    name: 'prepare_campaign_plan',
    title: TITLE,
    description:
      'Prepares a draft campaign plan that a person at the brand reviews and completes in the campaign wizard (open review_path). ' +
      'It never publishes, funds or approves anything. Use a new UUID request_id per plan and reuse it, with identical arguments, for retries: ' +
      'a retry returns the same plan; changed arguments under a used request_id are refused (request_conflict). ' +
      'Dates are YYYY-MM-DD (review_on on or before planned_for); planning_budget is PHP with at most two decimals. ' +
      'notes are kept private for the brand and are not returned. A brand can hold 200 pending plans.',
    inputSchema: jsonSchema(PlanInputSchema, 'input'),
    outputSchema: jsonSchema(PlanResult, 'output'),
    annotations: {
      title: TITLE,
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  visibleTo: (identity) => identity.permissions.has(CAMPAIGNS_PREPARE),
  run: async (args, ctx) => {
    const { plan } = await preparePlan(ctx.plans, ctx.identity, args, ctx.requestId);
    return structuredResult(plan);
  },
};
