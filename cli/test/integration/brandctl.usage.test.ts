import { UsageSurface } from '@brand/proto/access/v1/usage';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { hashApiKey } from '@brand/shared/keys';
import { createAdminClient, randomHex, TEST_INTERNAL_TOKEN } from '@brand/testkit';
import { jsonOf, useBrandctlStack } from './brandctlHarness';

// brandctl key usage and requests --brand against a real records process: counts written as a
// gateway flushes them come back per key and outcome with the budget; the request log lists
// refusals newest first with the reason an operator may see, filters by key and code.

const h = useBrandctlStack();

let brandId: string;
let keyId: string;
let revokedId: string;
const owner = `owner-${randomHex(3)}@usage.test`;

beforeAll(async () => {
  const { brand } = await h.stack.admin.createBrand({
    tier: 'pro',
    verified: true,
    ownerEmail: owner,
  });
  brandId = brand.id;
  const sync = await h.stack.admin.createKey({
    brandId,
    actorEmail: owner,
    name: 'Warehouse sync',
  });
  const old = await h.stack.admin.createKey({ brandId, actorEmail: owner, name: 'Old sync' });
  keyId = sync.key.id;
  revokedId = old.key.id;
  await h.stack.admin.revokeKey(revokedId, owner);
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const gateway = createAdminClient(h.stack.records.address, TEST_INTERNAL_TOKEN);
  const count = (outcome: string, n: number, surface = UsageSurface.USAGE_SURFACE_REST) => ({
    brand_id: brandId,
    key_id: keyId,
    key_hash: '',
    address_brand_id: '',
    minute,
    surface,
    outcome,
    count: n,
  });
  const base = {
    brand_id: '',
    key_id: '',
    key_hash: '',
    address_brand_id: brandId,
    method: 'GET',
    path: '/api/v1/campaigns',
    status: 401,
    error_code: 'invalid_key',
    surface: UsageSurface.USAGE_SURFACE_REST,
    gateway_reason: '',
  };
  try {
    await gateway.usage('recordUsage', {
      environment: ENVIRONMENTS.toProto('live'),
      batch_id: `cli_${randomHex(8)}`,
      counts: [
        count('2xx', 40),
        count('429', 3),
        count('2xx', 5, UsageSurface.USAGE_SURFACE_ASSISTANT),
      ],
      requests: [
        {
          ...base,
          at: Date.now() - 2_000,
          key_hash: hashApiKey(old.secret),
          request_id: 'req_revoked',
        },
        {
          ...base,
          at: Date.now() - 1_000,
          error_code: 'missing_key',
          gateway_reason: 'no_key',
          request_id: 'req_nokey',
        },
      ],
    });
  } finally {
    gateway.close();
  }
});

it('key usage prints a key’s requests by surface and outcome with the budget', async () => {
  const r = await h.run('key', 'usage', keyId);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/budget 120 requests a minute/);
  expect(r.stdout).toMatch(new RegExp(`Warehouse sync ${keyId} +rest +2xx +40`));
  expect(r.stdout).toMatch(/assistant +2xx +5/);
  expect(r.stdout).toMatch(/rest +429 +3/);
  const json = jsonOf<{ brand_id: string; keys: { outcome: string; count: number }[] }>(
    await h.run('key', 'usage', '--brand', brandId, '--window', '7d', '--json'),
  );
  expect(json.brand_id).toBe(brandId);
  expect(json.keys.reduce((n, k) => n + k.count, 0)).toBe(48);
  const none = await h.run('key', 'usage');
  expect(none.code).not.toBe(0);
});

it('requests --brand lists refusals with the reason, filtered by key and code', async () => {
  const r = await h.run('requests', '--brand', brandId);
  expect(r.code).toBe(0);
  expect(r.stdout.indexOf('req_nokey')).toBeLessThan(r.stdout.indexOf('req_revoked'));
  expect(r.stdout).toMatch(new RegExp(`revoked \\S+ by ${owner}`));
  expect(r.stdout).toMatch(/no_key/);
  expect(r.stdout).toMatch(/at most the newest 10000 requests/);
  const byKey = jsonOf<{ entries: { request_id: string }[] }>(
    await h.run('requests', '--brand', brandId, '--key', revokedId, '--json'),
  );
  expect(byKey.entries.map((e) => e.request_id)).toEqual(['req_revoked']);
  const byCode = jsonOf<{ entries: { request_id: string }[] }>(
    await h.run('requests', '--brand', brandId, '--code', 'missing_key', '--json'),
  );
  expect(byCode.entries.map((e) => e.request_id)).toEqual(['req_nokey']);
  const bad = await h.run('requests', '--brand', 'nope');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/brand id/);
});
