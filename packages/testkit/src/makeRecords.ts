import { randomInt } from 'node:crypto';
import { insertRecords, RESOURCE_TABLES } from '@brand/records/recordWriter';
import type { Pool } from 'pg';
import type { ResourceName } from '@brand/shared/resources';
import { RECORD_FACTORIES, type RecordTypes } from './recordFactories';
import { API_TIMESTAMP, newestFirst } from './timestamps';

/** Resources whose rows must point at a campaign of the same brand. */
const NEEDS_CAMPAIGN: ReadonlySet<ResourceName> = new Set([
  'submissions',
  'payouts',
  'conversions',
  'links',
]);

/**
 * Inserts `count` realistic records of `resource` for `brandId` and returns them exactly as
 * the API would list them: newest first (created_at desc, id desc, ids compared bytewise).
 *
 * By default row i is created about i seconds before now, with random microseconds, so
 * created_at strictly decreases with i. `overrides(i)` replaces fields of row i; timestamps
 * must be API timestamps (UTC, six fractional digits). Rows that need a campaign and get no
 * `campaign_id` from `overrides` share one campaign created for this call (so it also shows
 * up in the brand's campaigns). Throws if a factory and RESOURCE_TABLES disagree on columns.
 */
export async function makeRecords<R extends ResourceName>(
  pool: Pool,
  brandId: string,
  resource: R,
  count: number,
  overrides?: (i: number) => Partial<RecordTypes[R]>,
): Promise<Array<RecordTypes[R]>> {
  const nowMicros = Date.now() * 1000;
  const extras = Array.from({ length: count }, (_, i) => overrides?.(i) ?? {});
  let campaignId = '';
  const needsCampaign = NEEDS_CAMPAIGN.has(resource);
  if (needsCampaign && extras.some((e) => !(e as { campaign_id?: string }).campaign_id)) {
    // older than every default row, as a parent would be
    const [campaign] = await makeRecords(pool, brandId, 'campaigns', 1, () => ({
      created_at: RECORD_FACTORIES.campaigns({
        i: 0,
        createdMicros: nowMicros - (count + 1) * 1_000_000,
        campaignId: '',
      }).created_at,
    }));
    campaignId = campaign!.id;
  }

  const factory = RECORD_FACTORIES[resource] as (c: {
    i: number;
    createdMicros: number;
    campaignId: string;
  }) => RecordTypes[R];
  const expected = Object.keys(RESOURCE_TABLES[resource].columns).sort().join(',');
  const rows = extras.map((extra, i) => {
    const createdMicros = nowMicros - i * 1_000_000 - randomInt(1_000_000);
    const row = { ...factory({ i, createdMicros, campaignId }), ...extra };
    const actual = Object.keys(row).sort().join(',');
    if (actual !== expected) {
      throw new Error(`makeRecords(${resource}): fields ${actual} differ from columns ${expected}`);
    }
    const createdAt = (row as { created_at: string }).created_at;
    if (!API_TIMESTAMP.test(createdAt)) {
      throw new Error(`makeRecords(${resource}): created_at ${createdAt} is not UTC with 6 digits`);
    }
    return row;
  });

  await insertRecords(
    pool,
    brandId,
    resource,
    rows as unknown as Parameters<typeof insertRecords>[3],
  );
  return rows.sort(newestFirst);
}

/**
 * `count` submissions of `brandId` awaiting review, the ones a business change (approve,
 * reject) can act on; returned newest first, like makeRecords.
 */
export function makePendingSubmissions(
  pool: Pool,
  brandId: string,
  count: number,
): Promise<Array<RecordTypes['submissions']>> {
  // the factory cycles statuses; a pending row has none of a reviewed one's fields
  return makeRecords(pool, brandId, 'submissions', count, () => ({
    status: 'pending',
    reviewed_at: undefined,
    rejection_reason: undefined,
    views: 0,
  }));
}
