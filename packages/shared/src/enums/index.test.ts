import { BrandTier, Environment, Role } from '@brand/proto/access/v1';
import { EventType } from '@brand/proto/events/v1';
import { CampaignType, PlanStatus } from '@brand/proto/plans/v1';
import { Resource } from '@brand/proto/records/v1';
import { RESOURCES } from '../resources';
import {
  CAMPAIGN_TYPES,
  ENVIRONMENTS,
  EVENT_TYPES,
  PLAN_STATUSES,
  RESOURCE_ENUM,
  ROLES,
  TIERS,
  type EnumTable,
} from './index';

/** The generated enum's real values: everything but UNSPECIFIED (0). */
const realValues = (e: Record<string, string | number>): number[] =>
  Object.values(e).filter((v): v is number => typeof v === 'number' && v > 0);

const TABLES: Array<[string, EnumTable<string, number>, Record<string, string | number>]> = [
  ['tiers', TIERS, BrandTier],
  ['roles', ROLES, Role],
  ['environments', ENVIRONMENTS, Environment],
  ['resources', RESOURCE_ENUM, Resource],
  ['event types', EVENT_TYPES, EventType],
  ['campaign types', CAMPAIGN_TYPES, CampaignType],
  ['plan statuses', PLAN_STATUSES, PlanStatus],
];

describe.each(TABLES)('%s', (_name, table, generated) => {
  it('maps every name to its generated value and back', () => {
    for (const name of table.names) expect(table.fromProto(table.toProto(name))).toBe(name);
  });

  it('covers every generated value except UNSPECIFIED, in order', () => {
    expect(table.names.map((n) => table.toProto(n))).toEqual(realValues(generated));
  });

  it('has no name for UNSPECIFIED or unknown numbers', () => {
    expect(table.fromProto(0)).toBeUndefined();
    expect(table.fromProto(99)).toBeUndefined();
    expect(table.isName('')).toBe(false);
    expect(table.isName('toString')).toBe(false);
  });
});

describe('spot checks', () => {
  it('uses the words of the contract', () => {
    expect(TIERS.toProto('plus')).toBe(BrandTier.BRAND_TIER_PLUS);
    expect(TIERS.names).toEqual(['free', 'plus', 'pro', 'enterprise']);
    expect(RESOURCE_ENUM.names).toEqual([...RESOURCES]);
    expect(EVENT_TYPES.names).toEqual([
      'submission.approved',
      'submission.rejected',
      'payout.paid',
      'campaign.settled',
    ]);
    expect(CAMPAIGN_TYPES.names).toEqual(['blitz', 'ugc', 'package', 'affiliate']);
    expect(PLAN_STATUSES.names).toEqual(['pending', 'cancelled', 'completed']);
  });
});
