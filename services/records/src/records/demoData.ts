import { randomInt } from 'node:crypto';
import { newId } from '@brand/shared/ids';
import type { ResourceName } from '@brand/shared/resources';
import type { RecordRow } from './recordRepo';

/** Records per resource at scale 1: about 4,000 in all. */
const VOLUME: Record<ResourceName, number> = {
  campaigns: 40,
  submissions: 1500,
  payouts: 700,
  deposits: 120,
  links: 400,
  conversions: 1300,
};

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 180;

const TITLES = [
  'Summer Glow Serum Launch',
  'Back-to-School Snack Pack',
  'Rainy Season Rain Gear',
  '11.11 Mega Sale Push',
  'Holiday Gift Sets',
  'Coffee Mornings UGC',
  'Fitness Month Challenge',
  'New Flavor Taste Test',
  'Payday Weekend Deals',
  'Creator Unboxing Series',
];
const HANDLES = [
  'mika.creates',
  'jun_eats_mnl',
  'bea.styles',
  'carlo.vlogs',
  'tita.reviews',
  'iya.glowup',
  'paolo.runs',
  'lia.makes',
  'rj.techph',
  'nina.travels',
];
const PLATFORMS = ['tiktok', 'instagram', 'youtube', 'facebook'];
const CAMPAIGN_TYPES = ['blitz', 'ugc', 'package', 'affiliate'];

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)]!;

/** `n` distinct items in random order. */
function sample<T>(items: readonly T[], n: number): T[] {
  const pool = [...items];
  return Array.from(
    { length: Math.min(n, pool.length) },
    () => pool.splice(randomInt(pool.length), 1)[0]!,
  );
}

/** Weighted choice: `[[value, weight], ...]`. */
function weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
  const total = choices.reduce((sum, [, w]) => sum + w, 0);
  let roll = randomInt(total);
  for (const [value, w] of choices) {
    if ((roll -= w) < 0) return value;
  }
  return choices[0]![0];
}

/** An RFC 3339 UTC timestamp with microseconds, like those PostgreSQL returns. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', `${String(randomInt(1000)).padStart(3, '0')}Z`);
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A time in [fromMs, nowMs]. */
const between = (fromMs: number, nowMs: number): number =>
  fromMs + randomInt(Math.max(1, Math.min(nowMs - fromMs, 2 ** 47)));

/**
 * Builds a brand's worth of related demo records (submissions and links under campaigns,
 * payouts for approved submissions, conversions through links), created over the last
 * six months, in insert order (parents first).
 */
export function buildDemoData(
  scale: number,
  nowMs = Date.now(),
): Array<[ResourceName, RecordRow[]]> {
  const count = (r: ResourceName): number => VOLUME[r] * scale;
  const start = nowMs - HISTORY_DAYS * DAY_MS;

  const campaigns = Array.from({ length: count('campaigns') }, () => {
    const createdMs = between(start, nowMs - DAY_MS);
    const status = weighted([
      ['active', 5],
      ['completed', 2],
      ['settled', 3],
      ['paused', 1],
      ['draft', 1],
    ] as const);
    const budget = randomInt(50, 2_000) * 1_000_00;
    const settledAt = status === 'settled' ? timestamp(between(createdMs, nowMs)) : undefined;
    const createdAt = timestamp(createdMs);
    return {
      id: newId('campaign'),
      title: `${pick(TITLES)} ${new Date(createdMs).getUTCFullYear()}`,
      type: pick(CAMPAIGN_TYPES),
      status,
      budget_amount: budget,
      spent_amount: status === 'draft' ? 0 : Math.floor((budget * randomInt(0, 101)) / 100),
      currency: 'PHP',
      platforms: sample(PLATFORMS, 1 + randomInt(3)),
      starts_on: isoDate(createdMs + DAY_MS),
      ends_on: isoDate(createdMs + 31 * DAY_MS),
      created_at: createdAt,
      updated_at: settledAt ?? createdAt,
      settled_at: settledAt,
    };
  });
  const createdMsOf = (row: { created_at: string | number | string[] | undefined }): number =>
    Date.parse(String(row.created_at));

  const submissions = Array.from({ length: count('submissions') }, () => {
    const campaign = pick(campaigns);
    const createdMs = between(createdMsOf(campaign), nowMs);
    const status = weighted([
      ['approved', 6],
      ['pending', 3],
      ['rejected', 2],
    ] as const);
    const reviewedMs = status === 'pending' ? undefined : between(createdMs, nowMs);
    const createdAt = timestamp(createdMs);
    const reviewedAt = reviewedMs === undefined ? undefined : timestamp(reviewedMs);
    const handle = pick(HANDLES);
    const platform = pick(PLATFORMS);
    return {
      id: newId('submission'),
      campaign_id: campaign.id,
      creator_handle: handle,
      platform,
      content_url: `https://www.${platform}.com/@${handle}/video/${randomInt(10 ** 9, 10 ** 10)}`,
      status,
      rejection_reason:
        status === 'rejected'
          ? pick(['Brand logo not visible', 'Video under 15 seconds', 'Missing disclosure tag'])
          : undefined,
      views: status === 'approved' ? randomInt(200, 500_000) : 0,
      created_at: createdAt,
      updated_at: reviewedAt ?? createdAt,
      reviewed_at: reviewedAt,
    };
  });

  const approved = submissions.filter((s) => s.status === 'approved');
  const payouts = Array.from({ length: Math.min(count('payouts'), approved.length) }, (_, i) => {
    const submission = approved[i]!;
    const createdMs = between(createdMsOf(submission), nowMs);
    const status = weighted([
      ['paid', 6],
      ['processing', 2],
      ['pending', 2],
      ['failed', 1],
    ] as const);
    const paidAt = status === 'paid' ? timestamp(between(createdMs, nowMs)) : undefined;
    const createdAt = timestamp(createdMs);
    return {
      id: newId('payout'),
      campaign_id: submission.campaign_id,
      submission_id: submission.id,
      creator_handle: submission.creator_handle,
      amount: randomInt(5, 300) * 100_00,
      currency: 'PHP',
      method: pick(['gcash', 'maya', 'bank_transfer']),
      status,
      failure_reason: status === 'failed' ? 'Account name does not match' : undefined,
      created_at: createdAt,
      updated_at: paidAt ?? createdAt,
      paid_at: paidAt,
    };
  });

  const deposits = Array.from({ length: count('deposits') }, () => {
    const campaign = pick(campaigns);
    const createdMs = between(createdMsOf(campaign), nowMs);
    const status = weighted([
      ['confirmed', 8],
      ['pending', 1],
      ['failed', 1],
    ] as const);
    const confirmedAt = status === 'confirmed' ? timestamp(between(createdMs, nowMs)) : undefined;
    const createdAt = timestamp(createdMs);
    return {
      id: newId('deposit'),
      campaign_id: randomInt(5) === 0 ? undefined : campaign.id,
      amount: randomInt(10, 500) * 1_000_00,
      currency: 'PHP',
      method: pick(['gcash', 'maya', 'bank_transfer', 'card']),
      status,
      reference: `DEP-${randomInt(10 ** 7, 10 ** 8)}`,
      created_at: createdAt,
      updated_at: confirmedAt ?? createdAt,
      confirmed_at: confirmedAt,
    };
  });

  const links = Array.from({ length: count('links') }, () => {
    const campaign = pick(campaigns);
    const createdMs = between(createdMsOf(campaign), nowMs);
    const clicks = randomInt(0, 20_000);
    return {
      id: newId('link'),
      campaign_id: campaign.id,
      creator_handle: pick(HANDLES),
      destination_url: `https://shop.example.ph/products/${randomInt(1000, 9999)}`,
      short_url: `https://go.example.ph/${newId('link').slice(4, 12)}`,
      status: weighted([
        ['active', 9],
        ['disabled', 1],
      ] as const),
      clicks,
      conversions: Math.floor(clicks / randomInt(20, 200)),
      created_at: timestamp(createdMs),
      updated_at: timestamp(between(createdMs, nowMs)),
    };
  });

  const conversions = Array.from({ length: count('conversions') }, () => {
    const link = pick(links);
    const occurredMs = between(createdMsOf(link), nowMs);
    const event = weighted([
      ['sale', 5],
      ['signup', 2],
      ['install', 2],
      ['lead', 1],
    ] as const);
    return {
      id: newId('conversion'),
      campaign_id: link.campaign_id,
      link_id: link.id,
      event,
      value_amount: event === 'sale' ? randomInt(199, 5_000) * 100 : 0,
      currency: 'PHP',
      order_reference: event === 'sale' ? `ORD-${randomInt(10 ** 6, 10 ** 7)}` : undefined,
      occurred_at: timestamp(occurredMs),
      created_at: timestamp(Math.min(nowMs, occurredMs + randomInt(1, 60_000))),
    };
  });

  return [
    ['campaigns', campaigns],
    ['submissions', submissions],
    ['payouts', payouts],
    ['deposits', deposits],
    ['links', links],
    ['conversions', conversions],
  ];
}
