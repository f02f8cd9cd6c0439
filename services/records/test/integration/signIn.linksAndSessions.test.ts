// Signing brand members in to the console. Links are single use, expire, are minted only for
// members of an eligible brand (the same answer otherwise) and are rate limited per address from
// one client and per client; sessions are stored as hashes, slide an idle expiry, end absolutely,
// and every resolve reads the member's standing from the database. A request is only stored (the
// same work for everyone) and links are minted by ClaimSignInMails, leased until
// CompleteSignInMails; a new link ends the earlier unused ones, and signing out everywhere, removal
// and a role change end what they must.
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

const LEASE_MS = 1_000;
let stack: Stack;
let console_: ConsoleClient;

beforeAll(async () => {
  stack = await startStack({
    gateways: 0,
    recordsEnv: {
      SIGN_IN_LINKS_PER_ADDRESS_AND_CLIENT: '3',
      SIGN_IN_LINKS_PER_CLIENT: '6',
      SIGN_IN_MAIL_LEASE_MS: String(LEASE_MS),
    },
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
const claim = async () => (await console_.sessions('claimSignInMails', { max_mails: 100 })).mails;
const complete = (claimIds: string[]) =>
  console_.sessions('completeSignInMails', { claim_ids: claimIds });
const redeem = (token: string) =>
  console_.sessions('redeemSignInLink', { token, client: undefined });
const pendingRequests = async (email: string): Promise<number> => {
  const { rows } = await stack.db.pool.query<{ n: number }>(
    `select count(*)::int as n from records.sign_in_requests where email = $1`,
    [email],
  );
  return rows[0]!.n;
};

/** Every activity entry of a brand, newest first. */
async function activityOf(brandId: string) {
  const { entries } = await stack.admin.access('listActivity', {
    brand_id: brandId,
    page_size: 100,
    page_token: '',
    actor: '',
    action: '',
    subject_id: '',
    since: '',
    until: '',
  });
  return entries;
}

describe('RequestSignInLink and ClaimSignInMails', () => {
  it('answers every address alike, and mints a link only for a member of an eligible brand', async () => {
    const { owner } = await brandWithOwner();
    const { owner: freeOwner } = await brandWithOwner({ tier: 'free' });
    const { owner: unverifiedOwner } = await brandWithOwner({ verified: false });
    const others = [`nobody-${randomHex(4)}@x.test`, freeOwner.email, unverifiedOwner.email];
    for (const email of [owner.email, ...others]) expect(await requestLink(email)).toEqual({});

    const mails = await claim();
    await complete(mails.map((m) => m.claim_id));
    const mine = mails.filter((m) => m.email === owner.email);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mine[0]!.claim_id).toMatch(/^sic_/);
    const ttl = Date.parse(mine[0]!.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    expect(mails.filter((m) => others.includes(m.email))).toEqual([]);
    // Strangers' requests are dropped, the member's forgotten once its mail is confirmed.
    for (const email of [owner.email, ...others]) expect(await pendingRequests(email)).toBe(0);
  });

  it('stores only the hash of the token', async () => {
    const { owner } = await brandWithOwner();
    const token = await console_.mintLink(owner.email);
    const { rows } = await stack.db.pool.query<{ n: number; raw: number }>(
      `select count(*) filter (where token_hash = $1)::int as n,
              count(*) filter (where encode(token_hash, 'escape') like '%' || $2 || '%')::int as raw
       from records.sign_in_links`,
      [sha256(token), token],
    );
    expect(rows[0]).toEqual({ n: 1, raw: 0 });
  });

  it('folds several requests for one address into one mail', async () => {
    const { owner } = await brandWithOwner();
    for (let i = 0; i < 3; i++) await requestLink(owner.email);
    const mails = (await claim()).filter((m) => m.email === owner.email);
    expect(mails).toHaveLength(1);
    await complete(mails.map((m) => m.claim_id));
    expect(await pendingRequests(owner.email)).toBe(0);
  });

  it('leases a claim: a mail not confirmed comes back with a new link, which ends the first', async () => {
    const { owner } = await brandWithOwner();
    await requestLink(owner.email);
    const [first] = (await claim()).filter((m) => m.email === owner.email);
    expect(first).toBeDefined();
    // Leased: not handed out again while the console may still be sending it.
    expect((await claim()).filter((m) => m.email === owner.email)).toEqual([]);
    const again = await waitFor(async () => (await claim()).find((m) => m.email === owner.email), {
      timeoutMs: LEASE_MS * 5,
      what: 'the unconfirmed mail claimed again',
    });
    expect(again.token).not.toBe(first!.token);
    expect(again.claim_id).not.toBe(first!.claim_id);
    await complete([again.claim_id]);
    await expect(redeem(first!.token)).rejects.toMatchObject({ code: 'invalid_sign_in_link' });
    await expect(redeem(again.token)).resolves.toMatchObject({ email: owner.email });
  });

  it('hands a mail to one of two concurrent claims only', async () => {
    const { owner } = await brandWithOwner();
    await requestLink(owner.email);
    const rounds = await Promise.all([claim(), claim(), claim()]);
    const mine = rounds.flat().filter((m) => m.email === owner.email);
    expect(mine).toHaveLength(1);
    await complete(rounds.flat().map((m) => m.claim_id));
  });

  it('drops a request not mailed within an hour, and says so in the log', async () => {
    const { owner } = await brandWithOwner();
    await requestLink(owner.email);
    await stack.db.pool.query(
      `update records.sign_in_requests set requested_at = now() - interval '61 minutes'
       where email = $1`,
      [owner.email],
    );
    expect((await claim()).filter((m) => m.email === owner.email)).toEqual([]);
    expect(await pendingRequests(owner.email)).toBe(0);
    await waitFor(() =>
      stack.records.logs().some((l) => l.includes('sign-in requests dropped unmailed')),
    );
  });

  it('limits one client per address (members or not), while another client is still answered', async () => {
    for (const email of [(await brandWithOwner()).owner.email, `ghost-${randomHex(4)}@x.test`]) {
      const abuser = client();
      for (let i = 0; i < 3; i++) await requestLink(email, abuser);
      const refused = await requestLink(email, abuser).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'rate_limited' });
      const wait = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(15 * 60);
      // Issue 23: the address is not locked for everyone.
      await expect(requestLink(email, client())).resolves.toEqual({});
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

  it('refuses a malformed address, a bad batch size and a bad claim id with validation_failed', async () => {
    await expect(requestLink('not-an-address')).rejects.toMatchObject({
      code: 'validation_failed',
    });
    for (const max_mails of [0, 101]) {
      await expect(console_.sessions('claimSignInMails', { max_mails })).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
    await expect(complete(["sic_x'; drop table x"])).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});

describe('RedeemSignInLink', () => {
  it('opens a session once: a link is single use', async () => {
    const { brand, owner } = await brandWithOwner();
    const token = await console_.mintLink(owner.email);
    const opened = await console_.sessions('redeemSignInLink', { token, client: undefined });
    expect(opened.email).toBe(owner.email);
    expect(opened.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened.csrf_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened.brands.map((b) => b.brand?.id)).toEqual([brand.id]);
    await expect(
      console_.sessions('redeemSignInLink', { token, client: undefined }),
    ).rejects.toMatchObject({
      code: 'invalid_sign_in_link',
    });
  });

  it('ends the earlier unused links of an address when a new one is minted (issue 23)', async () => {
    const { owner } = await brandWithOwner();
    const older = await console_.mintLink(owner.email);
    const newer = await console_.mintLink(owner.email);
    await expect(redeem(older)).rejects.toMatchObject({ code: 'invalid_sign_in_link' });
    await expect(redeem(newer)).resolves.toMatchObject({ email: owner.email });
  });

  it('refuses an expired link and an unknown one with the same code', async () => {
    const { owner } = await brandWithOwner();
    const token = await console_.mintLink(owner.email);
    await stack.db.pool.query(
      `update records.sign_in_links set expires_at = now() - interval '1 second' where token_hash = $1`,
      [sha256(token)],
    );
    for (const t of [token, 'A'.repeat(43), 'short']) {
      await expect(
        console_.sessions('redeemSignInLink', { token: t, client: undefined }),
      ).rejects.toMatchObject({
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

  it('writes member.signed_in to a brand when the session first opens it, once (issue 59)', async () => {
    const { brand, owner } = await brandWithOwner();
    const other = await brandWithOwner();
    await stack.admin.addMember({ brandId: other.brand.id, email: owner.email, role: 'member' });
    const signedIn = async (brandId: string) =>
      (await activityOf(brandId)).filter((e) => e.action === 'member.signed_in');
    const { sessionToken } = await console_.signIn(owner.email);
    // Proving the address opens no brand: neither brand hears of it yet.
    expect(await signedIn(brand.id)).toEqual([]);
    const open = () =>
      console_.sessions('resolveConsoleSession', {
        session_token: sessionToken,
        brand_id: brand.id,
      });
    await open();
    await open();
    expect(await signedIn(brand.id)).toMatchObject([
      { actor_email: owner.email, summary: `${owner.email} signed in with an emailed link` },
    ]);
    expect(await signedIn(other.brand.id)).toEqual([]);
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
    // Issue 59: removal is refused on the next request for this brand (the session, which
    // belongs to the address, lives on for its other brands), and an invitation grants nothing.
    await expect(resolve(devSession)).rejects.toMatchObject({ code: 'not_found' });
    await stack.admin.access('inviteMember', { brand_id: brand.id, email, role: 3 });
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

describe('member changes (issues 23 and 59)', () => {
  it('a role change reaches the member’s sessions at their next request, and ends none of them', async () => {
    const { brand } = await brandWithOwner();
    const email = `dev-${randomHex(4)}@x.test`;
    const dev = await stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const resolve = (token: string) =>
      console_.sessions('resolveConsoleSession', { session_token: token, brand_id: brand.id });
    const session = (await console_.signIn(email)).sessionToken;
    await stack.admin.access('changeMemberRole', { member_id: dev.id, role: 2 });
    // An emailed link's session belongs to the address: it lives on, with the new role.
    const resolved = await resolve(session);
    expect(resolved.member).toMatchObject({ id: dev.id, role: 2 });
    expect(resolved.member_assertion).toMatch(/^v1\./);
    const entries = await activityOf(brand.id);
    const changed = entries.find((e) => e.action === 'member.role_changed');
    expect(changed?.summary).toBe(`${email}: member to admin`);
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

    // Issue 23: an unused link, and a request not mailed yet, end with the sessions.
    const unused = await console_.mintLink(owner.email);
    await requestLink(owner.email);
    const ended = await console_.sessions('signOutEverywhere', { session_token: two });
    expect(ended.sessions_ended).toBe(2);
    await expect(redeem(unused)).rejects.toMatchObject({ code: 'invalid_sign_in_link' });
    expect(await pendingRequests(owner.email)).toBe(0);
    for (const t of [two, three]) {
      await expect(resolve(t)).rejects.toMatchObject({ code: 'invalid_session' });
    }
    await expect(
      console_.sessions('signOutEverywhere', { session_token: two }),
    ).rejects.toMatchObject({ code: 'invalid_session' });

    // Recorded where the sessions acted: none of them opened the brand, so it hears nothing
    // (issue 59); a session that opened it is recorded there when it ends.
    const entries = await activityOf(brand.id);
    expect(entries.filter((e) => e.action === 'member.signed_out')).toHaveLength(0);
    const four = (await console_.signIn(owner.email)).sessionToken;
    await console_.sessions('resolveConsoleSession', { session_token: four, brand_id: brand.id });
    await console_.sessions('signOut', { session_token: four });
    const after = await activityOf(brand.id);
    expect(after.filter((e) => e.action === 'member.signed_out')).toHaveLength(1);
  });
});

describe('ListOwnerEmails', () => {
  it('names a brand and its current owners only, oldest first, and nothing for an unknown brand', async () => {
    const { brand, owner } = await brandWithOwner();
    const other = await brandWithOwner();
    const second = await stack.admin.addMember({
      brandId: brand.id,
      email: `co-owner-${randomHex(4)}@brand.test`,
      role: 'owner',
    });
    const gone = await stack.admin.addMember({
      brandId: brand.id,
      email: `gone-${randomHex(4)}@brand.test`,
      role: 'owner',
    });
    await stack.admin.addMember({
      brandId: brand.id,
      email: `a-${randomHex(4)}@x.test`,
      role: 'admin',
    });
    await stack.admin.addMember({
      brandId: brand.id,
      email: `m-${randomHex(4)}@x.test`,
      role: 'member',
    });
    await stack.admin.access('removeMember', { member_id: gone.id });

    const list = (brandId: string) => console_.sessions('listOwnerEmails', { brand_id: brandId });
    expect(await list(brand.id)).toEqual({
      emails: [owner.email, second.email],
      brand_name: brand.name,
    });
    expect(await list(other.brand.id)).toEqual({
      emails: [other.owner.email],
      brand_name: other.brand.name,
    });
    expect(await list('br_doesNotExist')).toEqual({ emails: [], brand_name: '' });
    await expect(list('not-a-brand')).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
