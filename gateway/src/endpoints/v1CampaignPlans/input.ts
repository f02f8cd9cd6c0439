import { PlanInputSchema } from '@brand/shared/plans';

export const CAMPAIGN_PLANS_PATH = '/api/v1/campaign-plans';

/** Far above the largest valid input (about 45,000 characters of text), far below abuse. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The request body as PlanInputSchema accepts it (the REST body, the tool's arguments):
 * validated once, in preparePlan (plans/preparePlan.ts), shared with the MCP tool.
 */
export const CampaignPlanRequest = PlanInputSchema;
