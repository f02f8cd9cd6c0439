// Issue 15: signing brand members in to the console. Links are single use, expire, are
// minted only for members of an eligible brand (the same answer otherwise) and are rate
// limited per address and per client; sessions are stored as hashes, slide an idle expiry,
// end absolutely, and every resolve reads the member's standing from the database.
import { createHash, createPublicKey } from 'node:crypto';
import { verifyMemberAssertion } from '@brand/shared/console';
import {
  createConsoleClient,
  randomHex,
  startStack,
  TEST_ASSERTION_KEYS,
  waitFor,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;

beforeAll(async () => {
  stack = await startStack({
    gateways: 0,
    recordsEnv: { SIGN_IN_LINKS_PER_ADDRESS: '3', SIGN_IN_LINKS_PER_CLIENT: '6' },
  });
  console_ = createConsoleClient(stack.records.address);
});
afterAll(async () => {
  console_?.close();
  await stack?.close();
});

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();
const client = (): string => `client-${randomHex(6)}`;

async function brandWithOwner(opts: { tier?: 'free' | 'plus' | 'pro'; verified?: boolean } = {}) {
  return stack.admin.createBrand({
    tier: opts.tier ?? 'plus',
    verified: opts.verified ?? true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
}

const requestLink = (email: string, clientKey = client()) =>
  console_.sessions('requestSignInLink', { email, client_key: clientKey });

describe('RequestSignInLink', () => {
  it('mints a token only for a member of an eligible brand, and answers the same shape otherwise', async () => {
    const { owner } = await brandWithOwner();
    const { owner: freeOwner } = await brandWithOwner({ tier: 'free' });
    const { owner: unverifiedOwner } = await brandWithOwner({ verified: false });

    const member = await requestLink(owner.email);
    expect(member.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(member.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(member.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000 + 5_000);

    for (const email of [`nobody-${randomHex(4)}@x.test`, freeOwner.email, unverifiedOwner.email]) {
      expect(await requestLink(email)).toEqual({ token: '', expires_at: '' });
    }
  });

  it('stores only the hash of the token', async () => {
    const { owner } = await brandWithOwner();
    const { token } = await requestLink(owner.email);
    const { rows } = await stack.db.pool.query<{ n: number; raw: number }>(
      `select count(*) filter (where token_hash = $1)::int as n,
              count(*) filter (where encode(token_hash, 'escape') like '%' || $2 || '%')::int as raw
       from records.sign_in_links`,
      [sha256(token), token],
    );
    expect(rows[0]).toEqual({ n: 1, raw: 0 });
  });

  it('limits requests per address, members or not, with the seconds to wait', async () => {
    for (const email of [(await brandWithOwner()).owner.email, `ghost-${randomHex(4)}@x.test`]) {
      for (let i = 0; i < 3; i++) await requestLink(email);
      const refused = await requestLink(email).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'rate_limited' });
      const wait = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(15 * 60);
    }
  });

  it('limits requests per client across addresses', async () => {
    const key = client();
    for (let i = 0; i < 6; i++) await requestLink(`a${i}-${randomHex(3)}@x.test`, key);
    await expect(requestLink(`late-${randomHex(3)}@x.test`, key)).rejects.toMatchObject({
      code: 'rate_limited',
    });
    await expect(requestLink(`late-${randomHex(3)}@x.test`)).resolves.toBeDefined();
  });

  it('refuses a malformed address with validation_failed', async () => {
    await expect(requestLink('not-an-address')).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});

describe('RedeemSignInLink', () => {
  it('opens a session once: a link is single use', async () => {
    const { brand, owner } = await brandWithOwner();
    const { token } = await requestLink(owner.email);
    const opened = await console_.sessions('redeemSignInLink', { token });
    expect(opened.email).toBe(owner.email);
    expect(opened.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened.csrf_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened.brands.map((b) => b.brand?.id)).toEqual([brand.id]);
    await expect(console_.sessions('redeemSignInLink', { token })).rejects.toMatchObject({
      code: 'invalid_sign_in_link',
    });
  });

  it('refuses an expired link and an unknown one with the same code', async () => {
    const { owner } = await brandWithOwner();
    const { token } = await requestLink(owner.email);
    await stack.db.pool.query(
      `update records.sign_in_links set expires_at = now() - interval '1 second' where token_hash = $1`,
      [sha256(token)],
    );
    for (const t of [token, 'A'.repeat(43), 'short']) {
      await expect(console_.sessions('redeemSignInLink', { token: t })).rejects.toMatchObject({
        code: 'invalid_sign_in_link',
      });
    }
  });

  it('lets a member of several brands pick: every eligible brand is listed', async () => {
    const email = `multi-${randomHex(4)}@x.test`;
    const a = await brandWithOwner();
    const b = await brandWithOwner();
    const free = await brandWithOwner({ tier: 'free' });
    await stack.admin.addMember({ brandId: a.brand.id, email, role: 'owner' });
    await stack.admin.addMember({ brandId: b.brand.id, email, role: 'member' });
    await stack.admin.addMember({ brandId: free.brand.id, email, role: 'owner' });
    const { brands } = await console_.signIn(email);
    expect(brands.map((m) => m.brand?.id).sort()).toEqual([a.brand.id, b.brand.id].sort());
  });

  it('writes member.signed_in to the brand activity', async () => {
    const { brand, owner } = await brandWithOwner();
    await console_.signIn(owner.email);
    const { entries } = await stack.admin.access('listActivity', {
      brand_id: brand.id,
      page_size: 10,
      page_token: '',
    });
    expect(entries[0]).toMatchObject({ action: 'member.signed_in', actor_email: owner.email });
  });
});

describe('ResolveConsoleSession', () => {
  it('returns a 60 s assertion of the member, signed by records', async () => {
    const { brand, owner } = await brandWithOwner({ tier: 'pro' });
    const { sessionToken } = await console_.signIn(owner.email);
    const r = await console_.sessions('resolveConsoleSession', {
      session_token: sessionToken,
      brand_id: brand.id,
    });
    expect(r.member?.id).toBe(owner.id);
    expect(r.brand?.id).toBe(brand.id);
    const claims = verifyMemberAssertion(
      [createPublicKey(TEST_ASSERTION_KEYS.publicKeyPem)],
      r.member_assertion,
    );
    expect(claims).toMatchObject({
      brand_id: brand.id,
      member_id: owner.id,
      email: owner.email,
      role: 'owner',
      tier: 'pro',
    });
    expect(claims.exp - claims.iat).toBe(60);
    expect(Date.parse(r.member_assertion_expires_at)).toBe(claims.exp * 1000);
  });

  it('answers not_found for a brand the address is not a member of', async () => {
    const { owner } = await brandWithOwner();
    const other = await brandWithOwner();
    const { sessionToken } = await console_.signIn(owner.email);
    for (const brandId of [other.brand.id, 'br_doesNotExist', 'nonsense']) {
      await expect(
        console_.sessions('resolveConsoleSession', {
          session_token: sessionToken,
          brand_id: brandId,
        }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('refuses on the next request once the member is removed or the brand drops below Plus', async () => {
    const { brand, owner } = await brandWithOwner();
    const email = `dev-${randomHex(4)}@x.test`;
    const dev = await stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const ownerSession = (await console_.signIn(owner.email)).sessionToken;
    const devSession = (await console_.signIn(email)).sessionToken;
    const resolve = (token: string) =>
      console_.sessions('resolveConsoleSession', { session_token: token, brand_id: brand.id });
    await resolve(devSession);

    await stack.admin.access('removeMember', { member_id: dev.id });
    await expect(resolve(devSession)).rejects.toMatchObject({ code: 'not_found' });

    await stack.admin.updateBrand({ brandId: brand.id, tier: 'free' });
    await expect(resolve(ownerSession)).rejects.toMatchObject({ code: 'brand_not_eligible' });
    await stack.admin.updateBrand({ brandId: brand.id, tier: 'plus', verified: false });
    await expect(resolve(ownerSession)).rejects.toMatchObject({ code: 'brand_not_eligible' });
    await stack.admin.updateBrand({ brandId: brand.id, verified: true });
    await expect(resolve(ownerSession)).resolves.toMatchObject({ brand: { id: brand.id } });
  });

  it('keeps only the hash of the session token', async () => {
    const { owner } = await brandWithOwner();
    const { sessionToken } = await console_.signIn(owner.email);
    const { rows } = await stack.db.pool.query<{ n: number }>(
      `select count(*)::int as n from records.console_sessions where token_hash = $1`,
      [sha256(sessionToken)],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('slides the idle expiry and ends a session idle for 30 minutes or past 12 hours', async () => {
    const { owner } = await brandWithOwner();
    const resolve = (token: string) =>
      console_.sessions('resolveConsoleSession', { session_token: token, brand_id: '' });
    const age = (token: string, column: string, interval: string) =>
      stack.db.pool.query(
        `update records.console_sessions set ${column} = now() - interval '${interval}' where token_hash = $1`,
        [sha256(token)],
      );

    const sliding = (await console_.signIn(owner.email)).sessionToken;
    await age(sliding, 'last_seen_at', '29 minutes');
    await resolve(sliding); // slides last_seen_at to now
    await age(sliding, 'last_seen_at', '29 minutes');
    await expect(resolve(sliding)).resolves.toMatchObject({ email: owner.email });

    const idle = (await console_.signIn(owner.email)).sessionToken;
    await age(idle, 'last_seen_at', '31 minutes');
    await expect(resolve(idle)).rejects.toMatchObject({ code: 'invalid_session' });

    const old = (await console_.signIn(owner.email)).sessionToken;
    const { rows } = await stack.db.pool.query<{ hours: number }>(
      `select extract(epoch from expires_at - created_at)::int / 3600 as hours
       from records.console_sessions where token_hash = $1`,
      [sha256(old)],
    );
    expect(rows[0]!.hours).toBe(12);
    await stack.db.pool.query(
      `update records.console_sessions set expires_at = now() - interval '1 second' where token_hash = $1`,
      [sha256(old)],
    );
    await expect(resolve(old)).rejects.toMatchObject({ code: 'invalid_session' });
  });
});

describe('stale sessions', () => {
  it('are deleted a day after they ended or expired, live ones kept', async () => {
    const { owner } = await brandWithOwner();
    const ended = (await console_.signIn(owner.email)).sessionToken;
    const live = (await console_.signIn(owner.email)).sessionToken;
    await console_.sessions('signOut', { session_token: ended });
    await stack.db.pool.query(
      `update records.console_sessions set ended_at = now() - interval '25 hours' where token_hash = $1`,
      [sha256(ended)],
    );
    await console_.signIn(owner.email); // sweeps
    await waitFor(async () => {
      const { rows } = await stack.db.pool.query<{ n: number }>(
        `select count(*)::int as n from records.console_sessions where token_hash = $1`,
        [sha256(ended)],
      );
      return rows[0]!.n === 0;
    });
    const { rows } = await stack.db.pool.query<{ n: number }>(
      `select count(*)::int as n from records.console_sessions where token_hash = $1`,
      [sha256(live)],
    );
    expect(rows[0]!.n).toBe(1);
  });
});

describe('SignOut and SignOutEverywhere', () => {
  it('ends one session, or every session of the address', async () => {
    const { brand, owner } = await brandWithOwner();
    const resolve = (token: string) =>
      console_.sessions('resolveConsoleSession', { session_token: token, brand_id: '' });
    const one = (await console_.signIn(owner.email)).sessionToken;
    const two = (await console_.signIn(owner.email)).sessionToken;
    const three = (await console_.signIn(owner.email)).sessionToken;

    await console_.sessions('signOut', { session_token: one });
    await console_.sessions('signOut', { session_token: one }); // twice is fine
    await expect(resolve(one)).rejects.toMatchObject({ code: 'invalid_session' });
    await expect(resolve(two)).resolves.toBeDefined();

    const ended = await console_.sessions('signOutEverywhere', { session_token: two });
    expect(ended.sessions_ended).toBe(2);
    for (const t of [two, three]) {
      await expect(resolve(t)).rejects.toMatchObject({ code: 'invalid_session' });
    }
    await expect(
      console_.sessions('signOutEverywhere', { session_token: two }),
    ).rejects.toMatchObject({ code: 'invalid_session' });

    const { entries } = await stack.admin.access('listActivity', {
      brand_id: brand.id,
      page_size: 50,
      page_token: '',
    });
    expect(entries.filter((e) => e.action === 'member.signed_out')).toHaveLength(2);
  });
});
