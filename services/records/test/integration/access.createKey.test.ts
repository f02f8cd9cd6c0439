import { createHash } from 'node:crypto';
import { Environment } from '@brand/proto/access/v1';
import { startStack, type TierName, type Stack } from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

const keyCount = async (brandId: string): Promise<number> => {
  const r = await stack.db.pool.query<{ n: number }>(
    'select count(*)::int as n from api_keys where brand_id = $1',
    [brandId],
  );
  return r.rows[0]!.n;
};

describe('CreateKey succeeds', () => {
  it.each(['plus', 'pro', 'enterprise'] as const)(
    'for the owner of a verified %s brand, returning the secret once',
    async (plan) => {
      const { brand, owner } = await stack.admin.createBrand({ tier: plan, verified: true });
      const { key, secret } = await stack.admin.createKey({
        brandId: brand.id,
        actorEmail: owner.email,
        name: 'Warehouse sync',
      });
      expect(secret).toMatch(/^bk_live_[0-9A-Za-z]{40}$/);
      expect(key).toMatchObject({
        brand_id: brand.id,
        name: 'Warehouse sync',
        environment: Environment.ENVIRONMENT_LIVE,
        prefix: secret.slice(0, 12),
        permissions: [],
        created_by: owner.email,
        last_used_at: undefined,
        revoked_at: undefined,
      });
      expect(key.id).toMatch(/^key_[0-9A-Za-z]{20}$/);
      expect(JSON.stringify(key)).not.toContain(secret.slice(12));
    },
  );

  it('for a test key, which starts bk_test_', async () => {
    const { brand, owner } = await stack.admin.createBrand();
    const { key, secret } = await stack.admin.createKey({
      brandId: brand.id,
      actorEmail: owner.email,
      environment: 'test',
    });
    expect(secret).toMatch(/^bk_test_[0-9A-Za-z]{40}$/);
    expect(key.environment).toBe(Environment.ENVIRONMENT_TEST);
  });

  it('with campaigns:prepare on a live key, matching the actor email case-insensitively', async () => {
    const { brand, owner } = await stack.admin.createBrand({ ownerEmail: 'Boss@Brand.test' });
    expect(owner.email).toBe('boss@brand.test');
    const { key } = await stack.admin.createKey({
      brandId: brand.id,
      actorEmail: 'BOSS@brand.test',
      permissions: ['campaigns:prepare', 'campaigns:prepare'],
    });
    expect(key.permissions).toEqual(['campaigns:prepare']);
  });

  it('and stores only the SHA-256 of the secret', async () => {
    const { brand, owner } = await stack.admin.createBrand();
    const { key, secret } = await stack.admin.createKey({
      brandId: brand.id,
      actorEmail: owner.email,
    });
    const { rows } = await stack.db.pool.query<Record<string, unknown>>(
      'select * from api_keys where id = $1',
      [key.id],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect((row.key_hash as Buffer).toString('hex')).toBe(
      createHash('sha256').update(secret).digest('hex'),
    );
    const secretBody = secret.slice('bk_live_'.length);
    for (const [column, value] of Object.entries(row)) {
      const texts = Buffer.isBuffer(value)
        ? [value.toString('hex'), value.toString('utf8'), value.toString('base64')]
        : [JSON.stringify(value)];
      for (const text of texts) {
        expect([column, text.includes(secretBody.slice(0, 16))]).toEqual([column, false]);
      }
    }
    expect(row.prefix).toBe(secret.slice(0, 12));
  });
});

describe('CreateKey refuses', () => {
  const refusal = async (
    setup: { tier?: TierName; verified?: boolean; role?: 'admin' | 'member' | 'stranger' },
    key: {
      environment?: 'live' | 'test' | Environment;
      permissions?: string[];
      name?: string;
    } = {},
  ) => {
    const { brand, owner } = await stack.admin.createBrand({
      tier: setup.tier ?? 'plus',
      verified: setup.verified ?? true,
    });
    let actorEmail = owner.email;
    if (setup.role === 'admin' || setup.role === 'member') {
      actorEmail = `${setup.role}@${brand.id.toLowerCase()}.test`;
      await stack.admin.addMember({ brandId: brand.id, email: actorEmail, role: setup.role });
    } else if (setup.role === 'stranger') {
      actorEmail = 'stranger@elsewhere.test';
    }
    const result = stack.admin.createKey({ brandId: brand.id, actorEmail, ...key });
    const err = await result.then(
      () => {
        throw new Error('CreateKey unexpectedly succeeded');
      },
      (e: unknown) => e as { code: string; message: string; details?: unknown },
    );
    expect(await keyCount(brand.id)).toBe(0);
    return err;
  };

  it('a Free brand, naming the plan', async () => {
    const err = await refusal({ tier: 'free' });
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toMatch(/free plan/);
    expect(err.message).toMatch(/Plus, Pro or Enterprise/);
  });

  it('an unverified brand', async () => {
    const err = await refusal({ verified: false });
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toMatch(/not verified/);
    expect(err.message).not.toMatch(/plan/);
  });

  it('an admin-role actor', async () => {
    const err = await refusal({ role: 'admin' });
    expect(err.code).toBe('insufficient_permission');
    expect(err.message).toMatch(/Only a brand owner/);
    expect(err.message).toMatch(/is a brand admin/);
  });

  it('a member-role actor', async () => {
    const err = await refusal({ role: 'member' });
    expect(err.code).toBe('insufficient_permission');
    expect(err.message).toMatch(/is a brand member/);
  });

  it('an actor who is not a member of the brand', async () => {
    const err = await refusal({ role: 'stranger' });
    expect(err.code).toBe('insufficient_permission');
    expect(err.message).toMatch(/stranger@elsewhere\.test is not a member/);
  });

  it('campaigns:prepare on a test key', async () => {
    const err = await refusal({}, { environment: 'test', permissions: ['campaigns:prepare'] });
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toMatch(/campaigns:prepare can only be granted to live keys/);
  });

  it('an unknown permission', async () => {
    const err = await refusal({}, { permissions: ['campaigns:approve'] });
    expect(err).toMatchObject({
      code: 'validation_failed',
      details: [
        { field: 'permissions.0', message: expect.stringMatching(/unknown permission/) as string },
      ],
    });
  });

  it.each(['', '   '])('an empty name %p', async (name) => {
    const err = await refusal({}, { name });
    expect(err).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'name', message: expect.stringMatching(/is required/) as string }],
    });
  });

  it.each([Environment.ENVIRONMENT_UNSPECIFIED, 7 as Environment])(
    'environment value %i',
    async (environment) => {
      const err = await refusal({}, { environment });
      expect(err).toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'environment', message: 'must be one of live, test' }],
      });
    },
  );

  it('naming every unmet condition at once', async () => {
    const err = await refusal(
      { tier: 'free', verified: false },
      { environment: 'test', permissions: ['campaigns:prepare'] },
    );
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toMatch(/free plan/);
    expect(err.message).toMatch(/not verified/);
    expect(err.message).toMatch(/only be granted to live keys/);
  });

  it('a non-owner on a Free brand, naming the role and the plan', async () => {
    const err = await refusal({ tier: 'free', role: 'admin' });
    expect(err.code).toBe('insufficient_permission');
    expect(err.message).toMatch(/is a brand admin/);
    expect(err.message).toMatch(/free plan/);
  });

  it('an unknown brand', async () => {
    await expect(
      stack.admin.createKey({ brandId: 'br_doesNotExist000000', actorEmail: 'a@b.test' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
