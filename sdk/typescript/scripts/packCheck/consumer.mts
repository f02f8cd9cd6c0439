// Type-checked as an ES module consumer: the types an integrator relies on.
import {
  type BrandRecords,
  RateLimitedError,
  RequestConflictError,
  type CampaignPlanInput,
  type Page,
  type Submission,
} from '@brand-records/client';
import {
  memoryDeduplication,
  verifyAuditStreamDelivery,
  verifyWebhook,
  type AuditEntry,
  type WebhookEvent,
} from '@brand-records/client/webhooks';
import { openCheckpointFile, type CheckpointFile } from '@brand-records/client/checkpoint-file';

export async function consume(client: BrandRecords): Promise<string[]> {
  const page: Page<'submissions'> = await client.submissions.list({ limit: 10, since: new Date() });
  const first: Submission | undefined = page.data[0];
  const status: 'pending' | 'approved' | 'rejected' | undefined = first?.status;
  const remaining: number | undefined = page.meta.rateLimit?.remaining;
  const ids: string[] = [String(status), String(remaining), page.next_cursor ?? ''];
  for await (const payout of client.payouts.all({ since: '2026-11-01T00:00:00Z' }))
    ids.push(payout.id, String(payout.amount));

  const input: CampaignPlanInput = {
    title: 't',
    goal: 'g',
    campaign_type: 'ugc',
    planned_for: '2027-06-01',
    review_on: '2027-05-15',
    planning_budget: '100.00',
  };
  try {
    const plan = await client.campaignPlans.prepare(input, {
      requestId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    });
    ids.push(plan.review_path, String(plan.replayed));
  } catch (error) {
    if (error instanceof RequestConflictError) ids.push(error.code, String(error.planRequestId));
    if (error instanceof RateLimitedError) ids.push(String(error.retryAfterSeconds));
  }
  // @ts-expect-error: not a campaign type
  input.campaign_type = 'webinar';
  // @ts-expect-error: limit is a number
  await client.links.list({ limit: '5' });
  return ids;
}

export async function receive(rawBody: string, headers: Headers): Promise<string> {
  const event: WebhookEvent<'payout.paid' | 'campaign.settled'> = await verifyWebhook({
    rawBody,
    headers,
    secret: 'whsec_x',
    eventTypes: ['payout.paid', 'campaign.settled'],
    deduplicate: memoryDeduplication(),
  });
  // @ts-expect-error: the selected types are required (rule 5)
  await verifyWebhook({ rawBody, headers, secret: 'whsec_x' });
  switch (event.type) {
    case 'payout.paid':
      return `${event.data.object.resource} ${String(event.data.object.amount)}`;
    case 'campaign.settled':
      return event.data.object.resource;
  }
}

export async function receiveAuditRun(rawBody: Uint8Array, headers: Headers): Promise<string[]> {
  const { entries, attempt } = await verifyAuditStreamDelivery({
    rawBody,
    headers,
    secret: 'whsec_s',
  });
  // @ts-expect-error: a stream has no event types to select
  await verifyAuditStreamDelivery({ rawBody, headers, secret: 'whsec_s', eventTypes: [] });
  const first: AuditEntry | undefined = entries[0];
  const kind: 'activity' | 'request' | undefined = first?.kind;
  return [String(attempt), String(kind), ...entries.map((e) => `${e.position} ${e.id}`)];
}

export async function follow(client: BrandRecords, signal: AbortSignal): Promise<number> {
  const checkpoint: CheckpointFile = await openCheckpointFile('events.checkpoint');
  try {
    await client.events.follow({
      from: checkpoint.from,
      onCheckpoint: checkpoint.save,
      onEvent: (event) => event.id,
      signal,
    });
  } finally {
    await checkpoint.close();
  }
  const page = await client.events.list({ after: checkpoint.from.after });
  return page.head;
}
