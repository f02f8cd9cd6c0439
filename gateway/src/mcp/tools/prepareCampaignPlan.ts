import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@brand/shared/errors';
import type { ToolDefinition } from '../toolDefinition';

/**
 * prepare_campaign_plan (SPEC 2.3, 4.2): listed only for keys holding campaigns:prepare.
 * Its input schema is the contract's; the plans service that carries it out arrives with
 * the campaign-plans work, and until then a call is refused as a tool result (isError),
 * never a protocol error.
 */
const PREPARE_CAMPAIGN_PLAN: Tool = {
  name: 'prepare_campaign_plan',
  title: 'Prepare a campaign plan for review',
  description:
    'Prepares a draft campaign plan that a person at the brand reviews and completes in the campaign wizard (review_path). ' +
    'It never publishes, funds or approves anything. Use a new UUID request_id per plan and reuse it for retries.',
  inputSchema: {
    type: 'object',
    properties: {
      request_id: {
        type: 'string',
        format: 'uuid',
        description: 'A new UUID per plan; reuse it when retrying.',
      },
      title: { type: 'string', minLength: 1, maxLength: 200 },
      goal: { type: 'string', minLength: 1, maxLength: 2000 },
      campaign_type: {
        type: 'string',
        enum: ['blitz', 'ugc', 'package', 'affiliate'],
        description:
          'blitz (clipping), ugc (original content), package (influencers), affiliate (tracked promotion).',
      },
      planned_for: { type: 'string', format: 'date', description: 'Planned date, YYYY-MM-DD.' },
      review_on: { type: 'string', format: 'date', description: 'Review date, YYYY-MM-DD.' },
      planning_budget: {
        anyOf: [
          { type: 'number', exclusiveMinimum: 0 },
          { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' },
        ],
        description: 'Budget in PHP, at most two decimals, e.g. 25000 or "25000.50".',
      },
      summary: { type: 'string', maxLength: 2000 },
      brief: { type: 'string', maxLength: 10000 },
      requirements: { type: 'array', items: { type: 'string', maxLength: 500 }, maxItems: 50 },
      platforms: { type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10 },
      notes: {
        type: 'string',
        maxLength: 5000,
        description: 'Private to the brand; never shown to creators.',
      },
    },
    required: [
      'request_id',
      'title',
      'goal',
      'campaign_type',
      'planned_for',
      'review_on',
      'planning_budget',
    ],
    additionalProperties: false,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};

export const prepareCampaignPlanTool: ToolDefinition = {
  tool: PREPARE_CAMPAIGN_PLAN,
  visibleTo: (identity) => identity.permissions.has('campaigns:prepare'),
  run: () =>
    Promise.reject(
      new AppError(
        'service_unavailable',
        'Campaign-plan preparation is not available on this deployment yet.',
      ),
    ),
};
