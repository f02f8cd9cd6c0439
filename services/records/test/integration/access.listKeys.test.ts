import { Environment } from '@brand/proto/access/v1';
import { hashApiKey } from '@brand/shared/keys';
import { API_TIMESTAMP, makeBrandWithKey, startStack, waitFor, type Stack } from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

describe('ListKeys', () => {
  it('shows prefix, name, created, created_by, last used and revoked, newest first, never a secret', async () => {
    const first = await makeBrandWithKey(stack.admin, {
      keyName: 'Warehouse sync',
      permissions: ['campaigns:prepare'],
    });
    const brandId = first.brand.id;
    const second = await stack.admin.createKey({
      brandId,
      actorEmail: first.owner.email,
      name: 'Staging',
      environment: 'test',
    });
    await stack.admin.authenticateKey(hashApiKey(first.secret), 'live');
    await stack.admin.revokeKey(second.key.id);

    const keys = await waitFor(
      async () => {
        const listed = await stack.admin.listKeys(brandId);
        return listed.some((k) => k.last_used_at) ? listed : null;
      },
      { timeoutMs: 3_000, what: 'last_used_at' },
    );
    expect(keys.map((k) => k.id)).toEqual([second.key.id, first.key.id]);
    expect(keys[0]).toEqual({
      id: second.key.id,
      brand_id: brandId,
      name: 'Staging',
      environment: Environment.ENVIRONMENT_TEST,
      prefix: second.secret.slice(0, 12),
      permissions: [],
      created_at: expect.stringMatching(API_TIMESTAMP) as string,
      created_by: first.owner.email,
      last_used_at: undefined,
      revoked_at: expect.stringMatching(API_TIMESTAMP) as string,
      allowed_networks: [],
    });
    expect(keys[1]).toEqual({
      id: first.key.id,
      brand_id: brandId,
      name: 'Warehouse sync',
      environment: Environment.ENVIRONMENT_LIVE,
      prefix: first.secret.slice(0, 12),
      permissions: ['campaigns:prepare'],
      created_at: first.key.created_at,
      created_by: first.owner.email,
      last_used_at: expect.stringMatching(API_TIMESTAMP) as string,
      revoked_at: undefined,
      allowed_networks: [],
    });

    const text = JSON.stringify(keys);
    for (const secret of [first.secret, second.secret]) {
      expect(text).not.toContain(secret.slice(12));
      expect(text).not.toContain(hashApiKey(secret));
    }
  });

  it("lists only the brand's own keys", async () => {
    const a = await makeBrandWithKey(stack.admin);
    const b = await makeBrandWithKey(stack.admin);
    expect((await stack.admin.listKeys(a.brand.id)).map((k) => k.id)).toEqual([a.key.id]);
    expect((await stack.admin.listKeys(b.brand.id)).map((k) => k.id)).toEqual([b.key.id]);
  });

  it('lists every live key but only the 200 most recently ended of the last 90 days', async () => {
    // As services/records/src/access/keyRepo.ts (ENDED_KEYS_LISTED_*): a brand rolling daily
    // listed every key it ever had, past gRPC's message size in time.
    const { brand, owner, key: live } = await makeBrandWithKey(stack.admin);
    const make = (name: string) =>
      stack.admin.createKey({
        brandId: brand.id,
        actorEmail: owner.email,
        name,
        environment: 'live',
      });
    const endAll = (ago: string) =>
      stack.db.pool.query(
        `update api_keys set revoked_at = now() - $2::interval
          where brand_id = $1 and id <> $3 and revoked_at is null`,
        [brand.id, ago, live.id],
      );
    const old = await make('Ended long ago');
    await endAll('91 days');
    // 205 ended lately, in three runs (the live-key limit), the first run the longest ago
    for (const [n, ago] of [
      [90, '3 days'],
      [90, '2 days'],
      [25, '1 day'],
    ] as const) {
      for (let i = 0; i < n; i++) await make(`Rolled ${ago} ${i}`);
      await endAll(ago);
    }
    const expiring = await make('Expires tomorrow');
    await stack.db.pool.query(
      `update api_keys set expires_at = now() + interval '1 day' where id = $1`,
      [expiring.key.id],
    );

    const listed = await stack.admin.listKeys(brand.id);
    const ids = listed.map((k) => k.id);
    expect(ids).toContain(live.id);
    expect(ids).toContain(expiring.key.id);
    expect(ids).not.toContain(old.key.id);
    const ended = listed.filter((k) => k.revoked_at);
    expect(ended).toHaveLength(200);
    // the 5 left out are among the longest ended: the first run's
    expect(ended.filter((k) => k.name.startsWith('Rolled 3 days'))).toHaveLength(85);
    expect(listed).toHaveLength(202);
  }, 120_000);

  it('refuses an unknown brand with not_found', async () => {
    await expect(stack.admin.listKeys('br_doesNotExist000000')).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
