// "Your sessions": a session keeps the browser and address it signed in from and how it was opened;
// its owner lists the address's live sessions and ends one or all others, never another address's;
// last_seen_at is written at most once a minute; owners read each member's last sign-in and its
// method. Real records, PostgreSQL and Redis.
import { createHash } from 'node:crypto';
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

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

async function signInFrom(email: string, userAgent: string, address: string): Promise<string> {
  const opened = await console_.sessions('redeemSignInLink', {
    token: await console_.mintLink(email),
    client: { user_agent: userAgent, address },
  });
  return opened.session_token;
}

const list = (token: string) =>
  console_.sessions('listConsoleSessions', { session_token: token }).then((r) => r.sessions);

async function brandWithOwner() {
  return stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
}

describe('ListConsoleSessions', () => {
  it("lists the address's live sessions, newest first, with device, address and method", async () => {
    const { owner } = await brandWithOwner();
    const first = await signInFrom(owner.email, FIREFOX, '198.51.100.7');
    const second = await signInFrom(owner.email, `x${'y'.repeat(600)}\u0007`, '2001:db8::1');
    const stranger = (await brandWithOwner()).owner;
    await signInFrom(stranger.email, FIREFOX, '203.0.113.9');

    const sessions = await list(second);
    expect(sessions.map((s) => [s.address, s.current, s.sign_in_method])).toEqual([
      ['2001:db8::1', true, 'link'],
      ['198.51.100.7', false, 'link'],
    ]);
    expect(sessions[1]!.user_agent).toBe(FIREFOX);
    // A User-Agent is cut to 512 characters and control characters dropped, never refused.
    expect(sessions[0]!.user_agent).toHaveLength(512);
    expect(sessions[0]!.user_agent).not.toContain('\u0007');
    expect((await list(first)).find((s) => s.current)?.address).toBe('198.51.100.7');
  });

  it('refuses an unknown session token with invalid_session', async () => {
    await expect(list('A'.repeat(43))).rejects.toMatchObject({ code: 'invalid_session' });
  });
});

describe('last seen', () => {
  it('is written at most once a minute, and slides once it is a minute old', async () => {
    const { owner } = await brandWithOwner();
    const token = await signInFrom(owner.email, FIREFOX, '198.51.100.8');
    const lastSeen = async () =>
      (
        await stack.db.pool.query<{ at: Date }>(
          `select last_seen_at as at from records.console_sessions where token_hash = $1`,
          [sha256(token)],
        )
      ).rows[0]!.at.getTime();
    const resolve = () =>
      console_.sessions('resolveConsoleSession', { session_token: token, brand_id: '' });

    const opened = await lastSeen();
    await new Promise((r) => setTimeout(r, 20));
    await resolve();
    await resolve();
    expect(await lastSeen()).toBe(opened);

    await stack.db.pool.query(
      `update records.console_sessions set last_seen_at = now() - interval '61 seconds'
       where token_hash = $1`,
      [sha256(token)],
    );
    const aged = await lastSeen();
    await resolve();
    expect(await lastSeen()).toBeGreaterThan(aged + 60_000);
  });
});

describe('EndConsoleSession and EndOtherConsoleSessions', () => {
  it("ends one of the address's sessions, and answers not_found for another address's", async () => {
    const { owner } = await brandWithOwner();
    const mine = await signInFrom(owner.email, FIREFOX, '198.51.100.10');
    const other = await signInFrom(owner.email, FIREFOX, '198.51.100.11');
    const stranger = (await brandWithOwner()).owner;
    const theirs = await signInFrom(stranger.email, FIREFOX, '203.0.113.10');
    const theirId = (await list(theirs))[0]!.id;
    const otherId = (await list(other)).find((s) => s.current)!.id;

    for (const sessionId of [theirId, 'ses_unknown', 'not-an-id']) {
      await expect(
        console_.sessions('endConsoleSession', { session_token: mine, session_id: sessionId }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
    // The stranger's session is untouched.
    expect((await list(theirs)).map((s) => s.id)).toEqual([theirId]);

    await expect(
      console_.sessions('endConsoleSession', { session_token: mine, session_id: otherId }),
    ).resolves.toEqual({ ended_current: false });
    await expect(list(other)).rejects.toMatchObject({ code: 'invalid_session' });
    // Ending it again: it is no longer there.
    await expect(
      console_.sessions('endConsoleSession', { session_token: mine, session_id: otherId }),
    ).rejects.toMatchObject({ code: 'not_found' });

    const myId = (await list(mine))[0]!.id;
    await expect(
      console_.sessions('endConsoleSession', { session_token: mine, session_id: myId }),
    ).resolves.toEqual({ ended_current: true });
    await expect(list(mine)).rejects.toMatchObject({ code: 'invalid_session' });
  });

  it('ends every other session of the address and keeps the presented one', async () => {
    const { owner } = await brandWithOwner();
    const keep = await signInFrom(owner.email, FIREFOX, '198.51.100.12');
    const a = await signInFrom(owner.email, FIREFOX, '198.51.100.13');
    const b = await signInFrom(owner.email, FIREFOX, '198.51.100.14');
    const stranger = (await brandWithOwner()).owner;
    const theirs = await signInFrom(stranger.email, FIREFOX, '203.0.113.11');

    await expect(
      console_.sessions('endOtherConsoleSessions', { session_token: keep }),
    ).resolves.toEqual({ sessions_ended: 2 });
    for (const t of [a, b])
      await expect(list(t)).rejects.toMatchObject({ code: 'invalid_session' });
    expect((await list(keep)).map((s) => s.current)).toEqual([true]);
    expect(await list(theirs)).toHaveLength(1);
  });
});

describe("members' last use of the brand (issue 59)", () => {
  it('is shown to owners with how that session signed in, and only for this brand', async () => {
    const { brand, owner } = await brandWithOwner();
    const other = await brandWithOwner();
    const email = `member-${randomHex(4)}@brand.test`;
    await stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    await stack.admin.addMember({ brandId: other.brand.id, email, role: 'member' });
    // The member signs in and opens the other brand only: this brand learns nothing of it.
    const theirs = await signInFrom(email, FIREFOX, '198.51.100.16');
    await console_.actAs(theirs, other.brand.id);
    const token = await signInFrom(owner.email, FIREFOX, '198.51.100.15');
    const asOwner = await console_.actAs(token, brand.id);
    const { members } = await asOwner.access('listMembers', { brand_id: brand.id });
    const byEmail = new Map(members.map((m) => [m.email, m]));
    expect(byEmail.get(owner.email)).toMatchObject({ last_used_method: 'link' });
    const at = Date.parse(byEmail.get(owner.email)!.last_used_at!);
    expect(Math.abs(Date.now() - at)).toBeLessThan(60_000);
    expect(byEmail.get(email)).toMatchObject({ last_used_method: '' });
    expect(byEmail.get(email)!.last_used_at).toBeUndefined();
    // The deprecated address-wide fields are no longer set.
    expect(byEmail.get(owner.email)).toMatchObject({ last_sign_in_method: '' });
    expect(byEmail.get(owner.email)!.last_signed_in_at).toBeUndefined();
  });
});
