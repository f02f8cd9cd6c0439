import { createHash } from 'node:crypto';
import { Environment, BrandTier } from '@brand/proto/access/v1';
import { hashApiKey } from '@brand/shared/keys';
import { API_TIMESTAMP, makeBrandWithKey, startStack, waitFor, type Stack } from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

describe('AuthenticateKey', () => {
  it('resolves a valid key to its brand, plan and permissions', async () => {
    const { brand, key, secret } = await makeBrandWithKey(stack.admin, {
      tier: 'pro',
      permissions: ['campaigns:prepare'],
    });
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).resolves.toEqual({
      key_id: key.id,
      brand_id: brand.id,
      tier: BrandTier.BRAND_TIER_PRO,
      permissions: ['campaigns:prepare'],
      allowed_networks: [],
    });
  });

  // A rolling upgrade: a gateway of a release before key networks ignores allowed_networks, so it
  // admitted a key bound to networks from any address while it was still running (a review,
  // 2026-11-30). Such a gateway does not say it enforces networks, and is not given the key.
  it('gives a key bound to networks only to a caller that enforces them', async () => {
    const { brand, owner, secret } = await makeBrandWithKey(stack.admin);
    const { secret: bound } = await stack.admin.createKey({
      brandId: brand.id,
      actorEmail: owner.email,
      allowedNetworks: ['203.0.113.0/24'],
    });
    await expect(stack.admin.authenticateKey(hashApiKey(bound), 'live')).resolves.toMatchObject({
      allowed_networks: ['203.0.113.0/24'],
    });
    await expect(
      stack.admin.authenticateKey(hashApiKey(bound), 'live', { enforcesNetworks: false }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
    // a key without networks is any gateway's
    await expect(
      stack.admin.authenticateKey(hashApiKey(secret), 'live', { enforcesNetworks: false }),
    ).resolves.toMatchObject({ brand_id: brand.id });
  });

  it('reports the brand plan as it is now', async () => {
    const { brand, secret } = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    await stack.admin.updateBrand({ brandId: brand.id, tier: 'enterprise' });
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).resolves.toMatchObject({
      tier: BrandTier.BRAND_TIER_ENTERPRISE,
    });
  });

  it('refuses an unknown key with invalid_key', async () => {
    await makeBrandWithKey(stack.admin);
    const unknown = createHash('sha256').update('bk_live_never-issued').digest('hex');
    await expect(stack.admin.authenticateKey(unknown, 'live')).rejects.toMatchObject({
      code: 'invalid_key',
      message: 'The API key is not valid.',
    });
  });

  it.each(['', 'xyz', 'A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(64)}' or '1'='1`])(
    'refuses the malformed hash %p with invalid_key',
    async (hash) => {
      await expect(stack.admin.authenticateKey(hash, 'live')).rejects.toMatchObject({
        code: 'invalid_key',
      });
    },
  );

  it('refuses the upper-case hex of a valid key (hashes are lower-case hex)', async () => {
    const { secret } = await makeBrandWithKey(stack.admin);
    await expect(
      stack.admin.authenticateKey(hashApiKey(secret).toUpperCase(), 'live'),
    ).rejects.toMatchObject({ code: 'invalid_key' });
  });

  it('refuses a revoked key with invalid_key, saying it was revoked', async () => {
    const { key, secret } = await makeBrandWithKey(stack.admin);
    await stack.admin.revokeKey(key.id);
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
      message: expect.stringMatching(/revoked/) as string,
    });
  });

  it('refuses a key from its expiry instant with invalid_key, like a revoked key', async () => {
    const { key, secret } = await makeBrandWithKey(stack.admin);
    await stack.db.pool.query(
      `update api_keys set expires_at = now() + interval '1 hour' where id = $1`,
      [key.id],
    );
    const valid = await stack.admin.authenticateKey(hashApiKey(secret), 'live');
    expect(valid.expires_at).toMatch(API_TIMESTAMP);
    expect(Date.parse(valid.expires_at!)).toBeGreaterThan(Date.now() + 3_500_000);

    await stack.db.pool.query(`update api_keys set expires_at = now() where id = $1`, [key.id]);
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
      message: expect.stringMatching(/expired/) as string,
    });
  });

  it('never lets an expiry be cleared or moved later, whoever writes it', async () => {
    const { key } = await makeBrandWithKey(stack.admin);
    await stack.db.pool.query(`update api_keys set expires_at = now() where id = $1`, [key.id]);
    await expect(
      stack.db.pool.query(`update api_keys set expires_at = null where id = $1`, [key.id]),
    ).rejects.toThrow(/only move earlier/);
    await expect(
      stack.db.pool.query(
        `update api_keys set expires_at = now() + interval '1 day' where id = $1`,
        [key.id],
      ),
    ).rejects.toThrow(/only move earlier/);
    await stack.db.pool.query(
      `update api_keys set expires_at = expires_at - interval '1 second' where id = $1`,
      [key.id],
    );
  });

  it('refuses a key of the other environment with invalid_key', async () => {
    const live = await makeBrandWithKey(stack.admin, { environment: 'live' });
    const test = await makeBrandWithKey(stack.admin, { environment: 'test' });
    await expect(
      stack.admin.authenticateKey(hashApiKey(live.secret), 'test'),
    ).rejects.toMatchObject({
      code: 'invalid_key',
      message: expect.stringMatching(/live key/) as string,
    });
    await expect(
      stack.admin.authenticateKey(hashApiKey(test.secret), 'live'),
    ).rejects.toMatchObject({
      code: 'invalid_key',
      message: expect.stringMatching(/test key/) as string,
    });
    await expect(
      stack.admin.authenticateKey(hashApiKey(test.secret), 'test'),
    ).resolves.toMatchObject({
      brand_id: test.brand.id,
    });
  });

  it('refuses a missing environment with invalid_parameter', async () => {
    const { secret } = await makeBrandWithKey(stack.admin);
    await expect(
      stack.admin.authenticateKey(hashApiKey(secret), Environment.ENVIRONMENT_UNSPECIFIED),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  it('records last_used_at after a successful use', async () => {
    const { brand, key, secret } = await makeBrandWithKey(stack.admin);
    expect(key.last_used_at).toBeUndefined();
    await stack.admin.authenticateKey(hashApiKey(secret), 'live');
    const used = await waitFor(
      async () => (await stack.admin.listKeys(brand.id)).find((k) => k.last_used_at),
      { timeoutMs: 3_000, what: 'last_used_at to be set' },
    );
    expect(used.id).toBe(key.id);
    expect(used.last_used_at).toMatch(API_TIMESTAMP);
    expect(used.last_used_at! >= key.created_at).toBe(true);
  });

  it('does not record use of a refused key', async () => {
    const { brand, key, secret } = await makeBrandWithKey(stack.admin, { environment: 'test' });
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toBeDefined();
    await new Promise((r) => setTimeout(r, 300));
    const [listed] = await stack.admin.listKeys(brand.id);
    expect(listed).toMatchObject({ id: key.id, last_used_at: undefined });
  });
});
