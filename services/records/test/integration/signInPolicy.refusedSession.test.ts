// SetBrandSignInPolicy holds the brand's current sign-in policy against the session that asks,
// as resolving a session for the brand does: a session the brand refuses cannot change how its
// members sign in. Before, it checked role and "not an emailed link" only, so a passkey session
// of an owner of a brand requiring single sign-on could lift the requirement by calling records
// directly (the console refuses that session first). A brand that is not eligible for the console
// (below Plus, or unverified) is refused first, with resolving's brand_not_eligible: before, a
// direct call changed such a brand's policy. Real records and PostgreSQL; sessions are written as
// records stores them (the sign-ins themselves are the console's tests).
import { createHash, randomBytes } from 'node:crypto';
import {
  createConsoleClient,
  randomHex,
  startStack,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  console_ = createConsoleClient(stack.records.address);
});
afterAll(async () => {
  console_?.close();
  await stack?.close();
});

/** A live session of `email`, opened by `method` (and, for 'sso', by `ssoBrandId`'s provider). */
async function session(
  email: string,
  method: 'link' | 'passkey' | 'sso',
  ssoBrandId: string | null = null,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await stack.db.pool.query(
    `insert into records.console_sessions
       (id, token_hash, email, csrf_secret, expires_at, sign_in_method, user_agent,
        client_address, sso_brand_id)
     values ($1, $2, $3, 'csrf', now() + interval '1 hour', $4, 'test', '127.0.0.1', $5)`,
    [`ses_${randomHex(8)}`, createHash('sha256').update(token).digest(), email, method, ssoBrandId],
  );
  return token;
}

/** A brand (Plus, verified by default) whose policy is `policy`, as its owner once set it. */
async function brandRequiring(
  policy: 'passkey_or_sso' | 'sso',
  standing: { tier: 'free' | 'plus'; verified: boolean } = { tier: 'plus', verified: true },
) {
  const created = await stack.admin.createBrand(standing);
  await stack.db.pool.query(`update records.brands set sign_in_policy = $2 where id = $1`, [
    created.brand.id,
    policy,
  ]);
  return created;
}

async function policyOf(brandId: string): Promise<string> {
  const { rows } = await stack.db.pool.query<{ sign_in_policy: string }>(
    `select sign_in_policy from records.brands where id = $1`,
    [brandId],
  );
  return rows[0]!.sign_in_policy;
}

async function refusalsAt(brandId: string): Promise<string[]> {
  const { rows } = await stack.db.pool.query<{ summary: string }>(
    `select summary from records.activity
      where brand_id = $1 and action = 'member.sign_in_refused' order by id`,
    [brandId],
  );
  return rows.map((r) => r.summary);
}

const set = (token: string, brandId: string, policy: string) =>
  console_.passkeys('setBrandSignInPolicy', { session_token: token, brand_id: brandId, policy });

describe('setBrandSignInPolicy from a session the brand refuses', () => {
  it('refuses a passkey session at a brand requiring single sign-on, for any new policy', async () => {
    const { brand, owner } = await brandRequiring('sso');
    const passkey = await session(owner.email, 'passkey');
    const refused = {
      code: 'sign_in_method_required',
      message: `${brand.name} requires single sign-on; sign in through its identity provider.`,
    };

    await expect(set(passkey, brand.id, 'any')).rejects.toMatchObject(refused);
    await expect(set(passkey, brand.id, 'passkey_or_sso')).rejects.toMatchObject(refused);
    expect(await policyOf(brand.id)).toBe('sso');
    // Recorded at the brand once for the session, as resolving it there records it.
    expect(await refusalsAt(brand.id)).toEqual([
      `${owner.email} tried to sign in with a passkey; refused: ${brand.name} requires single sign-on; sign in through its identity provider.`,
    ]);
  });

  it('refuses a link session at a brand requiring a passkey with the brand’s own reason', async () => {
    const { brand, owner } = await brandRequiring('passkey_or_sso');
    const linked = await session(owner.email, 'link');
    await expect(set(linked, brand.id, 'any')).rejects.toMatchObject({
      code: 'sign_in_method_required',
      message: `${brand.name} requires signing in with a passkey; an emailed link does not open it.`,
    });
    expect(await policyOf(brand.id)).toBe('passkey_or_sso');
  });

  it('still lets the brand’s own single sign-on session, and a passkey one where admitted, change it', async () => {
    const { brand, owner } = await brandRequiring('sso');
    const sso = await session(owner.email, 'sso', brand.id);
    await set(sso, brand.id, 'passkey_or_sso');
    expect(await policyOf(brand.id)).toBe('passkey_or_sso');

    const passkey = await session(owner.email, 'passkey');
    await set(passkey, brand.id, 'any');
    expect(await policyOf(brand.id)).toBe('any');
    expect(await refusalsAt(brand.id)).toEqual([]);
  });
});

describe('setBrandSignInPolicy for a brand not eligible for the console', () => {
  it.each([
    [
      'on the free plan',
      { tier: 'free', verified: true } as const,
      'is on the free plan; the Developers area needs Plus, Pro or Enterprise.',
    ],
    [
      'not verified',
      { tier: 'plus', verified: false } as const,
      'is not verified yet; the Developers area opens once it is.',
    ],
  ])(
    'refuses the brand %s as resolving a session for it does, before its sign-in policy',
    async (_name, standing, why) => {
      const { brand, owner } = await brandRequiring('passkey_or_sso', standing);
      const notEligible = { code: 'brand_not_eligible', message: `${brand.name} ${why}` };

      const passkey = await session(owner.email, 'passkey');
      await expect(set(passkey, brand.id, 'any')).rejects.toMatchObject(notEligible);
      // a session the policy refuses hears the brand's standing first, and nothing is recorded
      const linked = await session(owner.email, 'link');
      await expect(set(linked, brand.id, 'any')).rejects.toMatchObject(notEligible);
      expect(await policyOf(brand.id)).toBe('passkey_or_sso');
      expect(await refusalsAt(brand.id)).toEqual([]);
    },
  );
});
