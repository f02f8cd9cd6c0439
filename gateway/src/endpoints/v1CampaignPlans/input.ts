import { PlanInputSchema } from '@brand/shared/plans';

export const CAMPAIGN_PLANS_PATH = '/api/v1/campaign-plans';

/**
 * Above the largest valid input in the largest JSON a client honestly writes it as, far below
 * abuse. The text limits count characters (code points), 44,200 in all: title 200, goal 2,000,
 * summary 2,000, brief 10,000, requirements 50 x 500 = 25,000, notes 5,000. The longest JSON
 * spelling of a character is an astral one escaped as its surrogate pair, \uD83D\uDE00, 12
 * bytes (Python's json.dumps escapes every non-ASCII character): 44,200 x 12 = 530,400 bytes.
 * Everything else escaped too (the keys, request_id, the type, the dates, "100000000.00", all
 * ten platforms), with the quotes, brackets and json.dumps's separators ", " and ": ": 1,784
 * bytes more, 532,184 in all (plans.bodyLimit builds it). 576 KiB (589,824) leaves 57 KB for
 * indentation and the MCP envelope (MCP_MAX_BODY_BYTES has the same default). Text padded with
 * whitespace that trimming drops is not counted: no limit can admit every padding.
 */
export const MAX_BODY_BYTES = 576 * 1024;

/**
 * The request body as PlanInputSchema accepts it (the REST body, the tool's arguments):
 * validated once, in preparePlan (plans/preparePlan.ts), shared with the MCP tool.
 */
export const CampaignPlanRequest = PlanInputSchema;
