import type { EventTypeName } from '@brand/shared/enums';

/** Sample records for test deliveries: realistic shape, obviously not real (ids end in "Sample"). */
const SAMPLES: Record<EventTypeName, Record<string, unknown>> = {
  'submission.approved': {
    resource: 'submissions',
    id: 'sub_0000000000000Sample',
    status: 'approved',
    campaign_id: 'cmp_0000000000000Sample',
    creator_handle: '@sample.creator',
  },
  'submission.rejected': {
    resource: 'submissions',
    id: 'sub_0000000000000Sample',
    status: 'rejected',
    campaign_id: 'cmp_0000000000000Sample',
    creator_handle: '@sample.creator',
    rejection_reason: 'Sample reason',
  },
  'payout.paid': {
    resource: 'payouts',
    id: 'po_00000000000000Sample',
    status: 'paid',
    amount: 150000,
    currency: 'PHP',
    creator_handle: '@sample.creator',
  },
  'campaign.settled': {
    resource: 'campaigns',
    id: 'cmp_0000000000000Sample',
    status: 'settled',
    name: 'Sample campaign',
  },
};

export function sampleObject(type: EventTypeName): Record<string, unknown> {
  return SAMPLES[type];
}
