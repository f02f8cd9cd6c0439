import { createAdminClient, startStack, TEST_INTERNAL_TOKEN, type Stack } from '@brand/testkit';
import { hashApiKey } from '@brand/shared/keys';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

describe('AccessService admin RPCs without the internal token', () => {
  const cases = [
    ['missing', ''],
    ['wrong', `${TEST_INTERNAL_TOKEN}-but-not-quite`],
  ] as const;

  it.each(cases)('refuse a %s token on every admin RPC with unauthenticated', async (_, token) => {
    const client = createAdminClient(stack.records.address, token);
    try {
      const { brand, owner } = await stack.admin.createBrand();
      const { key } = await stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email });
      const brandsBefore = await stack.admin.listBrands();
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['CreateBrand', () => client.createBrand()],
        ['ListBrands', () => client.listBrands()],
        ['UpdateBrand', () => client.updateBrand({ brandId: brand.id, plan: 'free' })],
        [
          'AddMember',
          () => client.addMember({ brandId: brand.id, email: 'x@y.test', role: 'admin' }),
        ],
        ['CreateKey', () => client.createKey({ brandId: brand.id, actorEmail: owner.email })],
        ['ListKeys', () => client.listKeys(brand.id)],
        ['RevokeKey', () => client.revokeKey(key.id)],
        ['SeedDemoData', () => client.seedDemoData(brand.id)],
      ];
      for (const [rpc, call] of calls) {
        await expect(call().then(() => rpc)).rejects.toMatchObject({
          code: 'unauthenticated',
          message: expect.stringContaining('internal token') as string,
        });
      }
      // nothing was changed by the refused calls
      expect(await stack.admin.listBrands()).toEqual(brandsBefore);
      const keys = await stack.admin.listKeys(brand.id);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({ id: key.id, revoked_at: undefined });
      const { rows } = await stack.db.pool.query('select count(*)::int as n from brand_members');
      expect(rows[0]).toEqual({ n: brandsBefore.length });
    } finally {
      client.close();
    }
  });

  it('AuthenticateKey needs no token', async () => {
    const { brand, owner } = await stack.admin.createBrand();
    const { secret } = await stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email });
    const client = createAdminClient(stack.records.address, '');
    try {
      await expect(client.authenticateKey(hashApiKey(secret), 'live')).resolves.toMatchObject({
        brand_id: brand.id,
      });
    } finally {
      client.close();
    }
  });
});
