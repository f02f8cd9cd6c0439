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
  brandWithOwners,
  randomHex,
  startStack,
  twoChangesAtOnce,
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

const ownerEmails = async (brandId: string) =>
  (await stack.admin.access('listMembers', { brand_id: brandId })).members
    .filter((m) => m.role === Role.ROLE_OWNER)
    .map((m) => m.email)
    .sort();

describe('two owners changing each other at once', () => {
  it('removing each other: the first removal stands, the removed owner acts no more', async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b', 'c'], ['a', 'b']);
    const [first, second] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
      () => t.as.b.access('removeMember', { member_id: t.owner.a.id }),
    );
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: false, code: 'not_found' });
    expect(await ownerEmails(t.brand.id)).toEqual([t.owner.a.email, t.owner.c.email].sort());
  });

  it('a demoted owner cannot demote another owner behind their own demotion', async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b', 'c'], ['a', 'b']);
    const [first, second] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
      () => t.as.b.access('changeMemberRole', { member_id: t.owner.c.id, role: Role.ROLE_MEMBER }),
    );
    expect(first).toEqual({ ok: true });
    expect(second).toEqual({ ok: false, code: 'insufficient_permission' });
    expect(await ownerEmails(t.brand.id)).toEqual([t.owner.a.email, t.owner.c.email].sort());
  });

  it("a removed owner's invitation waiting behind the removal is not sent", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b', 'c'], ['a', 'b']);
    const accomplice = `accomplice-${randomHex(4)}@elsewhere.test`;
    const [removal, invitation] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
      () =>
        t.as.b.access('inviteMember', {
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
