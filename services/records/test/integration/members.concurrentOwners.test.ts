// Two owners changing each other at the same moment (a hostile review of lost updates and
// races, 2026-12-01). Records read the actor's standing before it took the brand's member lock,
// so a change waiting behind another owner's removal or demotion of its actor went ahead on
// the authority the actor no longer had: two owners removing each other both went, and a
// demoted owner's demotion of a third owner landed after theirs, and an owner's invitation sent
// while their removal committed was stored after the removal had withdrawn theirs, so it outlived
// them (docs/console.md: "The invitations a member sent go with them"). The standing is read again
// under the lock now: exactly one of the two changes is made, the other refused as for an actor
// removed (not_found) or demoted (insufficient_permission) a second earlier.
import { Role } from '@brand/proto/access/v1';
import {
  createConsoleClient,
  queueBehindRowLock,
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

/** A brand with three owners, A and B signed in. */
async function threeOwners() {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    ownerEmail: `a-${randomHex(4)}@brand.test`,
  });
  const addOwner = (name: string) =>
    stack.admin.addMember({
      brandId: brand.id,
      email: `${name}-${randomHex(4)}@brand.test`,
      role: 'owner',
    });
  const b = await addOwner('b');
  const c = await addOwner('c');
  const act = async (email: string) =>
    console_.actAs((await console_.signIn(email)).sessionToken, brand.id);
  return { brand, a: owner, b, c, asA: await act(owner.email), asB: await act(b.email) };
}

/** The two changes queued behind a lock on the brand's row (the member lock), in that order. */
const atOnce = (brandId: string, first: () => Promise<unknown>, second: () => Promise<unknown>) =>
  queueBehindRowLock(
    stack.db.pool,
    { sql: 'select 1 from brands where id = $1 for update', params: [brandId] },
    [settled(first), settled(second)] as const,
  );

const settled = (call: () => Promise<unknown>) => () =>
  call().then(
    () => ({ ok: true as const }),
    (err: { code?: string }) => ({ ok: false as const, code: err.code }),
  );

const ownerEmails = async (brandId: string) =>
  (await stack.admin.access('listMembers', { brand_id: brandId })).members
    .filter((m) => m.role === Role.ROLE_OWNER)
    .map((m) => m.email)
    .sort();

describe('two owners changing each other at once', () => {
  it('removing each other: the first removal stands, the removed owner acts no more', async () => {
    const t = await threeOwners();
    const [first, second] = await atOnce(
      t.brand.id,
      () => t.asA.access('removeMember', { member_id: t.b.id }),
      () => t.asB.access('removeMember', { member_id: t.a.id }),
    );
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: false, code: 'not_found' });
    expect(await ownerEmails(t.brand.id)).toEqual([t.a.email, t.c.email].sort());
  });

  it('a demoted owner cannot demote another owner behind their own demotion', async () => {
    const t = await threeOwners();
    const [first, second] = await atOnce(
      t.brand.id,
      () => t.asA.access('changeMemberRole', { member_id: t.b.id, role: Role.ROLE_MEMBER }),
      () => t.asB.access('changeMemberRole', { member_id: t.c.id, role: Role.ROLE_MEMBER }),
    );
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: false, code: 'insufficient_permission' });
    expect(await ownerEmails(t.brand.id)).toEqual([t.a.email, t.c.email].sort());
  });

  it("a removed owner's invitation waiting behind the removal is not sent", async () => {
    const t = await threeOwners();
    const accomplice = `accomplice-${randomHex(4)}@elsewhere.test`;
    const [removal, invitation] = await atOnce(
      t.brand.id,
      () => t.asA.access('removeMember', { member_id: t.b.id }),
      () =>
        t.asB.access('inviteMember', {
          brand_id: t.brand.id,
          email: accomplice,
          role: Role.ROLE_OWNER,
        }),
    );
    expect(removal).toEqual({ ok: true });
    expect(invitation).toEqual({ ok: false, code: 'not_found' });
    const open = await stack.db.pool.query(
      'select id from member_invitations where brand_id = $1 and outcome is null',
      [t.brand.id],
    );
    expect(open.rows).toEqual([]);
  });
});
