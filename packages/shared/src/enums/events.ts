import { EventType } from '@brand/proto/events/v1';
import { enumTable } from './enumTable';

/**
 * The four business events receivers can subscribe to (docs/contract.md#event-types), by the names that appear
 * in X-Service-Event, in the body's "type" and in a receiver's event selection.
 */
export const EVENT_TYPES = enumTable({
  'submission.approved': EventType.EVENT_TYPE_SUBMISSION_APPROVED,
  'submission.rejected': EventType.EVENT_TYPE_SUBMISSION_REJECTED,
  'payout.paid': EventType.EVENT_TYPE_PAYOUT_PAID,
  'campaign.settled': EventType.EVENT_TYPE_CAMPAIGN_SETTLED,
} as const satisfies Record<string, EventType>);
export type EventTypeName = (typeof EVENT_TYPES.names)[number];
