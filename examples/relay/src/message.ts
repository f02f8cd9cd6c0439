import { type DeliveryEvent, type EventType } from '@brand/example-receiver';

/** The body a team-chat incoming webhook expects (Slack, Mattermost and others accept it). */
export interface ChatMessage {
  text: string;
}

const LABELS: Record<EventType, string> = {
  'submission.approved': 'Submission approved',
  'submission.rejected': 'Submission rejected',
  'payout.paid': 'Payout paid',
  'campaign.settled': 'Campaign settled',
};

// The dashboard section comes from the event type, never from the body, so a link can
// only point where we mean it to.
const SECTIONS: Record<EventType, string> = {
  'submission.approved': 'submissions',
  'submission.rejected': 'submissions',
  'payout.paid': 'payouts',
  'campaign.settled': 'campaigns',
};

/**
 * Turns an event into a short chat message: what happened, the record id and a dashboard
 * link (docs/contract.md#channel-relay). It reads only the type, the test flag and the record id, so creator
 * handles, amounts, payment details and anything else in the record can never leak into a
 * channel, whatever fields the record gains later.
 */
export function toChatMessage(event: DeliveryEvent, dashboardBaseUrl: string): ChatMessage {
  // encodeURIComponent also escapes <, > and |, which chat markup would read as a link.
  const id = encodeURIComponent(event.data.object.id);
  const link = `${dashboardBaseUrl.replace(/\/+$/, '')}/${SECTIONS[event.type]}/${id}`;
  const prefix = event.test ? '[test] ' : '';
  return { text: `${prefix}${LABELS[event.type]} (${event.type}): ${id}\n${link}` };
}
