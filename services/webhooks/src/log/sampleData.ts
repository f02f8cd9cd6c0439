import type { EventTypeName } from '@brand/shared/enums';

/**
 * Sample records for test deliveries: obviously not real (ids end in "Sample", the handle is
 * `sample.creator`, the content URL is on example.com), and each a whole record of its resource
 * in the published shape (gateway/src/records/recordSchemas.ts): `resource`, then every field in
 * the schema's order, null when absent. A receiver parses a Test with the code it runs for real
 * deliveries, so a sample that lacks a field (or has one no record has) tests nothing, or fails
 * for no fault of the receiver. gateway/test/integration/webhooks.openApi.test.ts validates the
 * Test delivery of each type against the served OpenAPI document.
 */
const CAMPAIGN = 'cmp_00000000000000Sample';
const SUBMISSION = 'sub_00000000000000Sample';
const HANDLE = 'sample.creator';

const submission = (status: 'approved' | 'rejected', rejectionReason: string | null) => ({
  resource: 'submissions',
  id: SUBMISSION,
  campaign_id: CAMPAIGN,
  creator_handle: HANDLE,
  platform: 'tiktok',
  content_url: 'https://example.com/@sample.creator/video/0000000000',
  status,
  rejection_reason: rejectionReason,
  views: 12_500,
  created_at: '2026-10-10T08:00:00.000000Z',
  updated_at: '2026-10-11T02:15:00.000000Z',
  reviewed_at: '2026-10-11T02:15:00.000000Z',
});

const SAMPLES: Record<EventTypeName, Record<string, unknown>> = {
  'submission.approved': submission('approved', null),
  'submission.rejected': submission('rejected', 'Sample reason: the brand logo is not visible'),
  'payout.paid': {
    resource: 'payouts',
    id: 'po_00000000000000Sample',
    campaign_id: CAMPAIGN,
    submission_id: SUBMISSION,
    creator_handle: HANDLE,
    amount: 150_000,
    currency: 'PHP',
    method: 'gcash',
    status: 'paid',
    failure_reason: null,
    created_at: '2026-10-12T01:00:00.000000Z',
    updated_at: '2026-10-13T04:45:00.000000Z',
    paid_at: '2026-10-13T04:45:00.000000Z',
  },
  'campaign.settled': {
    resource: 'campaigns',
    id: CAMPAIGN,
    title: 'Sample campaign',
    type: 'ugc',
    status: 'settled',
    budget_amount: 5_000_000,
    spent_amount: 4_825_000,
    currency: 'PHP',
    platforms: ['tiktok', 'instagram'],
    starts_on: '2026-10-01',
    ends_on: '2026-10-31',
    created_at: '2026-09-20T03:00:00.000000Z',
    updated_at: '2026-11-05T09:30:00.000000Z',
    settled_at: '2026-11-05T09:30:00.000000Z',
  },
};

export function sampleObject(type: EventTypeName): Record<string, unknown> {
  return SAMPLES[type];
}
