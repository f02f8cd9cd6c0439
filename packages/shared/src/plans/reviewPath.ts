import type { CampaignTypeName } from '../enums';

/** The workspace of the dashboard where each campaign type's wizard lives (docs/contract.md#plan-input). */
export const REVIEW_WORKSPACES = {
  blitz: 'clipping',
  ugc: 'ugc',
  package: 'influencers',
  affiliate: 'affiliate',
} as const satisfies Record<CampaignTypeName, string>;

/** `/workspaces/<workspace>/plans/<plan_id>/review`: the page that opens the prefilled wizard. */
export function reviewPathFor(type: CampaignTypeName, planId: string): string {
  return `/workspaces/${REVIEW_WORKSPACES[type]}/plans/${encodeURIComponent(planId)}/review`;
}
