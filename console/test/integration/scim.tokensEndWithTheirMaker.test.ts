// A SCIM token speaks with the authority of the owner who made it (found by a security review):
// an owner about to be removed could make one, be removed, and provision themselves back through
// it, as an owner again if they mapped a group to owner. A token now ends, in the same
// transaction, when its maker leaves the brand or loses the owner role, as the invitations they
// sent do; the activity says so. Real records, the console process, each step as owners take it.
import { LOCK_QUEUE_SERVICE_ENV, queueBehindRowLock, randomHex } from '@brand/testkit';
import { csrfOf, type ConsoleHttp } from '../browserlessClient';
import { brandWithOwner, LOCK_QUEUE_CONSOLE_ENV, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { scimClient, scimTokenOf } from '../scimActors';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({
    signInOnly: true,
    consoleEnv: LOCK_QUEUE_CONSOLE_ENV,
    recordsEnv: LOCK_QUEUE_SERVICE_ENV,
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

const db = () => cs.stack.db.pool;

/** A brand with two owners, each signed in: A, who stays, and B, who makes a token. */
async function twoOwners() {
  const made = await brandWithOwner(cs);
  const brandId = made.brand.id;
  const emailB = `owner-b-${randomHex(4)}@brand.test`;
  await cs.stack.admin.addMember({ brandId, email: emailB, role: 'owner' });
  const [a, b] = [await signInHttp(cs, made.owner.email), await signInHttp(cs, emailB)];
  const { rows } = await db().query<{ id: string }>(
    `select id from records.brand_members
      where brand_id = $1 and email = $2 and removed_at is null`,
    [brandId, emailB],
  );
  return { brandId, a, b, emailB, memberB: rows[0]!.id };
}

/** An owner's change on the Members page, as the page's form posts it. */
async function onMembersPage(owner: ConsoleHttp, brandId: string, path: string, form = {}) {
  const page = await owner.get(`/brands/${brandId}/members`);
  return owner.post(`/brands/${brandId}/members${path}`, { _csrf: csrfOf(page.body), ...form });
}

const statusOf = async (token: string) =>
  (await scimClient(cs, token)('GET', '/Users', undefined, { timeoutMs: 8_000 })).status;

async function activity(brandId: string, action: string): Promise<string[]> {
  const { rows } = await db().query<{ summary: string }>(
    `select summary from records.activity where brand_id = $1 and action = $2 order by id`,
    [brandId, action],
  );
  return rows.map((r) => r.summary);
}

describe('a SCIM token whose maker', () => {
  it('is removed by another owner is refused at the next SCIM call', async () => {
    const o = await twoOwners();
    const tokenA = await scimTokenOf(o.a, o.brandId, 'Okta');
    const tokenB = await scimTokenOf(o.b, o.brandId, 'Rogue');
    expect(await statusOf(tokenB)).toBe(200);

    expect((await onMembersPage(o.a, o.brandId, `/${o.memberB}/remove`)).status).toBe(303);
    expect(await statusOf(tokenB)).toBe(401);
    // The other owner's token keeps working; the removal says what it ended.
    expect(await statusOf(tokenA)).toBe(200);
    const [removed] = await activity(o.brandId, 'member.removed');
    expect(removed).toMatch(
      /; the SCIM token “Rogue” \(scim_[A-Za-z0-9_-]{6}…\) they made revoked$/,
    );
    const page = await o.a.get(`/brands/${o.brandId}/provisioning`);
    expect(page.status).toBe(200);
  });

  it('is demoted to a role that cannot provision is refused at the next SCIM call', async () => {
    const o = await twoOwners();
    const tokenB = await scimTokenOf(o.b, o.brandId, 'Rogue');
    const second = await scimTokenOf(o.b, o.brandId, 'Second');
    expect(await statusOf(tokenB)).toBe(200);

    const demoted = await onMembersPage(o.a, o.brandId, `/${o.memberB}/role`, { role: 'admin' });
    expect(demoted.status).toBe(303);
    expect(await statusOf(tokenB)).toBe(401);
    expect(await statusOf(second)).toBe(401);
    const [changed] = await activity(o.brandId, 'member.role_changed');
    expect(changed).toContain('; 2 SCIM tokens they made revoked:');
  });

  // createScimToken checked the maker's role before it took the brand's lock: a removal
  // committing in between left a token of a member no longer there.
  it('is removed while the token is being made gets no token', async () => {
    const o = await twoOwners();
    const page = await o.b.get(`/brands/${o.brandId}/provisioning`);
    const removalPage = await o.a.get(`/brands/${o.brandId}/members`);
    const [removal, making] = await queueBehindRowLock(
      db(),
      { sql: 'select 1 from records.brands where id = $1 for no key update', params: [o.brandId] },
      [
        () =>
          o.a.post(`/brands/${o.brandId}/members/${o.memberB}/remove`, {
            _csrf: csrfOf(removalPage.body),
          }),
        () =>
          o.b.post(`/brands/${o.brandId}/provisioning/tokens`, {
            _csrf: csrfOf(page.body),
            name: 'Raced',
          }),
      ] as const,
    );
    expect(removal.status).toBe(303);
    expect(making.status).toBeGreaterThanOrEqual(400);
    const { rows } = await db().query(
      `select id from records.scim_tokens
        where brand_id = $1 and revoked_at is null and name = 'Raced'`,
      [o.brandId],
    );
    expect(rows).toEqual([]);
  });
});
