import type {
  Campaign,
  Conversion,
  Deposit,
  Link,
  Payout,
  Submission,
} from '@brand/proto/records/v1';
import { newId } from '@brand/shared/ids';
import type { ResourceName } from '@brand/shared/resources';
import { formatMicros } from './timestamps';

/** The wire shape of each resource's records: the generated proto messages. */
export interface RecordTypes {
  campaigns: Campaign;
  submissions: Submission;
  payouts: Payout;
  deposits: Deposit;
  conversions: Conversion;
  links: Link;
}

/** What a factory gets: the row's index, its created_at (µs) and its parent campaign. */
export interface RowContext {
  i: number;
  createdMicros: number;
  campaignId: string;
}

const HANDLES = ['mika.creates', 'jun_eats_mnl', 'bea.styles', 'carlo.vlogs', 'tita.reviews'];
const PLATFORMS = ['tiktok', 'instagram', 'youtube', 'facebook'];
const DAY_US = 86_400_000_000;

/** Cycles through `items` by index, so fixtures vary but stay reproducible. */
const nth = <T>(items: readonly T[], i: number): T => items[i % items.length]!;
const ts = formatMicros;
const isoDate = (micros: number): string => formatMicros(micros).slice(0, 10);

/**
 * One realistic record per resource, with every column of RESOURCE_TABLES (makeRecords
 * checks that). Nullable fields are set when the status implies them (a rejected submission
 * has a reason, a paid payout a paid_at) and left undefined otherwise.
 */
export const RECORD_FACTORIES: { [R in ResourceName]: (c: RowContext) => RecordTypes[R] } = {
  campaigns: ({ i, createdMicros: t }) => {
    const status = nth(['active', 'draft', 'paused', 'completed', 'settled'], i);
    const budget = (50 + (i % 20) * 25) * 1_000_00;
    return {
      id: newId('campaign'),
      title: `${nth(['Summer Glow', 'Payday Deals', 'Holiday Sets', 'Coffee UGC'], i)} #${i}`,
      type: nth(['blitz', 'ugc', 'package', 'affiliate'], i),
      status,
      budget_amount: budget,
      spent_amount: status === 'draft' ? 0 : Math.floor(budget / 3),
      currency: 'PHP',
      platforms: PLATFORMS.slice(0, 1 + (i % 3)),
      starts_on: isoDate(t + DAY_US),
      ends_on: isoDate(t + 31 * DAY_US),
      created_at: ts(t),
      updated_at: ts(t),
      settled_at: status === 'settled' ? ts(t) : undefined,
    };
  },
  submissions: ({ i, createdMicros: t, campaignId }) => {
    const status = nth(['pending', 'approved', 'rejected'], i);
    const platform = nth(PLATFORMS, i);
    const handle = nth(HANDLES, i);
    return {
      id: newId('submission'),
      campaign_id: campaignId,
      creator_handle: handle,
      platform,
      content_url: `https://www.${platform}.com/@${handle}/video/${1_000_000 + i}`,
      status,
      rejection_reason: status === 'rejected' ? 'Brand logo not visible' : undefined,
      views: status === 'approved' ? 1_000 + i * 7 : 0,
      created_at: ts(t),
      updated_at: ts(t),
      reviewed_at: status === 'pending' ? undefined : ts(t),
    };
  },
  payouts: ({ i, createdMicros: t, campaignId }) => {
    const status = nth(['pending', 'processing', 'paid', 'failed'], i);
    return {
      id: newId('payout'),
      campaign_id: campaignId,
      submission_id: undefined,
      creator_handle: nth(HANDLES, i),
      amount: (5 + (i % 30)) * 100_00,
      currency: 'PHP',
      method: nth(['gcash', 'maya', 'bank_transfer'], i),
      status,
      failure_reason: status === 'failed' ? 'Account name does not match' : undefined,
      created_at: ts(t),
      updated_at: ts(t),
      paid_at: status === 'paid' ? ts(t) : undefined,
    };
  },
  deposits: ({ i, createdMicros: t }) => {
    const status = nth(['confirmed', 'pending', 'failed'], i);
    return {
      id: newId('deposit'),
      campaign_id: undefined,
      amount: (10 + (i % 50)) * 1_000_00,
      currency: 'PHP',
      method: nth(['gcash', 'maya', 'bank_transfer', 'card'], i),
      status,
      reference: `DEP-${10_000_000 + i}`,
      created_at: ts(t),
      updated_at: ts(t),
      confirmed_at: status === 'confirmed' ? ts(t) : undefined,
    };
  },
  conversions: ({ i, createdMicros: t, campaignId }) => {
    const event = nth(['sale', 'signup', 'install', 'lead'], i);
    return {
      id: newId('conversion'),
      campaign_id: campaignId,
      link_id: undefined,
      event,
      value_amount: event === 'sale' ? (199 + i) * 100 : 0,
      currency: 'PHP',
      order_reference: event === 'sale' ? `ORD-${1_000_000 + i}` : undefined,
      occurred_at: ts(t - 30_000_000),
      created_at: ts(t),
    };
  },
  links: ({ i, createdMicros: t, campaignId }) => {
    const slug = newId('link').slice(4, 12);
    return {
      id: newId('link'),
      campaign_id: campaignId,
      creator_handle: nth(HANDLES, i),
      destination_url: `https://shop.example.ph/products/${1000 + i}`,
      short_url: `https://go.example.ph/${slug}`,
      status: i % 10 === 9 ? 'disabled' : 'active',
      clicks: i * 13,
      conversions: Math.floor((i * 13) / 40),
      created_at: ts(t),
      updated_at: ts(t),
    };
  },
};
