import { makeBrandWithKey, startStack, type Stack } from '@brand/testkit';

/**
 * Brand and key names are one line without text-direction controls (an outside probe,
 * 2026-11-30: a brand named `Ünïcødé 🍕 \u202eRTL` displayed reversed in tables).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(async () => {
  await stack?.close();
});

describe('one-line names', () => {
  it('refuses a brand named with a right-to-left override, saying why', async () => {
    await expect(
      stack.admin.createBrand({ name: 'Ünïcødé 🍕 \u202eRTL', tier: 'plus', verified: true }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('must not contain text-direction controls') as string,
    });
  });

  it('refuses a key named with an isolate, and an escape as a control character', async () => {
    const { brand, owner } = await makeBrandWithKey(stack.admin);
    const create = (name: string) =>
      stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email, name });
    await expect(create('Sync \u2067olleh\u2069')).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('must not contain text-direction controls') as string,
    });
    await expect(create('Sync \u001b[31m')).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('must be one line, without control characters') as string,
    });
  });

  it('keeps accepting names in right-to-left scripts and their marks', async () => {
    const { brand } = await stack.admin.createBrand({
      name: 'שלום\u200f (2) Ünïcødé 🍕',
      tier: 'plus',
      verified: true,
    });
    expect(brand.name).toBe('שלום\u200f (2) Ünïcødé 🍕');
  });
});
