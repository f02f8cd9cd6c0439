import { randomUUID } from 'node:crypto';
import type { PlanInput as PlanInputMessage } from '@brand/proto/plans/v1';
import { CAMPAIGN_TYPES } from '@brand/shared/enums';
import { PlanInputSchema } from '@brand/shared/plans';

/** A valid campaign-plan request body (docs/contract.md#plan-input) with a fresh request_id, plus overrides. */
export function planBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request_id: randomUUID(),
    title: 'Back-to-school launch',
    goal: 'Reach first-year students in Metro Manila',
    campaign_type: 'ugc',
    planned_for: '2027-06-01',
    review_on: '2027-05-15',
    planning_budget: '25000.50',
    summary: 'Short videos unboxing the new bag',
    brief: 'Show the bag in a real school day.',
    requirements: ['Tag the brand', 'Show the logo in the first 3 seconds'],
    platforms: ['tiktok', 'instagram'],
    notes: 'Private: margin is thin, keep under 30k',
    ...overrides,
  };
}

/** The PreparePlan input message for a valid body, as the gateway builds it. */
export function planInputMessage(body: Record<string, unknown>): PlanInputMessage {
  const input = PlanInputSchema.parse(body);
  return {
    ...input,
    campaign_type: CAMPAIGN_TYPES.toProto(input.campaign_type),
    requirements: input.requirements ?? [],
    platforms: input.platforms ?? [],
  };
}
