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

  it('refuses an unknown brand with not_found', async () => {
    await expect(stack.admin.listKeys('br_doesNotExist000000')).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
