import { BrandTier, Environment, type ApiKey } from '@brand/proto/access/v1';
import { brandJson, keyJson, keyTable, permissionsText, secretBlock } from './views';

const key: ApiKey = {
  id: 'key_1',
  brand_id: 'br_1',
  name: 'Warehouse sync',
  environment: Environment.ENVIRONMENT_LIVE,
  prefix: 'bk_live_7Qx2',
  permissions: ['campaigns:prepare'],
  created_at: '2025-01-31T09:15:02.123456Z',
  created_by: 'ana@acme.test',
  last_used_at: undefined,
  revoked_at: undefined,
  allowed_networks: [],
};

describe('views', () => {
  it('renders enums as the words operators type', () => {
    expect(
      brandJson({
        id: 'br_1',
        name: 'A',
        tier: BrandTier.BRAND_TIER_PRO,
        verified: true,
        created_at: 't',
        sign_in_policy: 'any',
      }),
    ).toEqual({
      id: 'br_1',
      name: 'A',
      tier: 'pro',
      verified: true,
      sign_in_policy: 'any',
      created_at: 't',
    });
    expect(keyJson(key)).toMatchObject({
      environment: 'live',
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
      replaced_by: null,
    });
  });

  it('lists reading records first among permissions, the same words in text and JSON', () => {
    expect(permissionsText([])).toBe('records:read');
    expect(permissionsText(['campaigns:prepare'])).toBe('records:read, campaigns:prepare');
    expect(keyJson({ ...key, permissions: [] }).permissions).toEqual(['records:read']);
    expect(keyJson(key).permissions).toEqual(['records:read', 'campaigns:prepare']);
  });

  it('tables a key with every column and dashes for what never happened', () => {
    const [header, , row] = keyTable([key]).split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'ID',
      'PREFIX',
      'NAME',
      'ENV',
      'PERMISSIONS',
      'CREATED',
      'CREATED BY',
      'LAST USED',
      'REVOKED',
      'EXPIRES',
    ]);
    expect(row!.split(/\s{2,}/)).toEqual([
      'key_1',
      'bk_live_7Qx2',
      'Warehouse sync',
      'live',
      'records:read, campaigns:prepare',
      '2025-01-31 09:15:02Z',
      'ana@acme.test',
      '-',
      '-',
      '-',
    ]);
  });

  it('labels the secret and warns that it is shown once and belongs server-side', () => {
    const block = secretBlock('bk_live_abc');
    expect(block).toMatch(/^Secret \(shown once\):/);
    expect(block).toContain('\n    bk_live_abc\n');
    expect(block).toMatch(/will not be shown again/);
    expect(block).toMatch(/server-side/);
  });
});
