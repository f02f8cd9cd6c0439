// The console acts for a member on keys, members and activity. Records checks the one permission
// table against the member's standing now (not only the assertion's), keeps brands apart (another
// brand's ids are not_found, never insufficient_permission), protects the last owner, and logs who
// did what.
import { generateKeyPairSync } from 'node:crypto';
import { Environment, Role } from '@brand/proto/access/v1';
import {
  createConsoleClient,
  randomHex,
  signTestAssertion,
  startStack,
  type ActingMember,
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

/** A Plus brand with its owner signed in, and a signed-in member of each other role. */
async function brandTeam() {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const act = async (email: string): Promise<ActingMember> =>
    console_.actAs((await console_.signIn(email)).sessionToken, brand.id);
  const adminEmail = `admin-${randomHex(4)}@brand.test`;
  const memberEmail = `member-${randomHex(4)}@brand.test`;
  await stack.admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
  await stack.admin.addMember({ brandId: brand.id, email: memberEmail, role: 'member' });
  return {
    brand,
    owner,
    asOwner: await act(owner.email),
    asAdmin: await act(adminEmail),
    asMember: await act(memberEmail),
  };
}

const newKey = (m: ActingMember, brandId: string, env = Environment.ENVIRONMENT_LIVE) =>
  m.access('createKey', {
    brand_id: brandId,
    name: 'Warehouse sync',
    environment: env,
    actor_email: '',
    permissions: [],
    allowed_networks: [],
  });

describe('keys through the console', () => {
  it('an owner creates (as the creator), lists and revokes keys; activity names them', async () => {
    const t = await brandTeam();
    const created = await newKey(t.asOwner, t.brand.id);
    expect(created.secret).toMatch(/^bk_live_/);
    expect(created.key?.created_by).toBe(t.owner.email);
    const prepared = await t.asOwner.access('createKey', {
      brand_id: t.brand.id,
      name: 'Assistant',
      environment: Environment.ENVIRONMENT_LIVE,
      actor_email: 'someone-else@x.test', // ignored: the member is the actor
      permissions: ['campaigns:prepare'],
      allowed_networks: [],
    });
    expect(prepared.key).toMatchObject({
      created_by: t.owner.email,
      permissions: ['campaigns:prepare'],
    });

    const listed = await t.asMember.access('listKeys', { brand_id: t.brand.id });
    expect(listed.keys.map((k) => k.id)).toEqual([prepared.key!.id, created.key!.id]);

    const revoked = await t.asOwner.access('revokeKey', {
      key_id: created.key!.id,
      actor_email: '',
    });
    expect(revoked.key?.revoked_at).toBeDefined();

    const { entries } = await t.asMember.access('listActivity', {
      brand_id: t.brand.id,
      page_size: 10,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    const keyEntries = entries.filter((e) => e.action.startsWith('key.'));
    expect(keyEntries.map((e) => [e.action, e.subject_id, e.actor_email])).toEqual([
      ['key.revoked', created.key!.id, t.owner.email],
      ['key.created', prepared.key!.id, t.owner.email],
      ['key.created', created.key!.id, t.owner.email],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.secret);
  });

  it('admins and members read keys but cannot create or revoke them', async () => {
    const t = await brandTeam();
    const { key } = await newKey(t.asOwner, t.brand.id);
    for (const who of [t.asAdmin, t.asMember]) {
      await expect(who.access('listKeys', { brand_id: t.brand.id })).resolves.toBeDefined();
      await expect(newKey(who, t.brand.id)).rejects.toMatchObject({
        code: 'insufficient_permission',
      });
      await expect(
        who.access('revokeKey', { key_id: key!.id, actor_email: '' }),
      ).rejects.toMatchObject({ code: 'insufficient_permission' });
    }
    const keys = await stack.admin.listKeys(t.brand.id);
    expect(keys).toHaveLength(1);
    expect(keys[0]!.revoked_at).toBeUndefined();
  });

  it("another brand's owner gets not_found for this brand's keys, whatever the ids", async () => {
    const a = await brandTeam();
    const b = await brandTeam();
    const { key } = await newKey(a.asOwner, a.brand.id);
    await expect(b.asOwner.access('listKeys', { brand_id: a.brand.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(newKey(b.asOwner, a.brand.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      b.asOwner.access('revokeKey', { key_id: key!.id, actor_email: '' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      b.asOwner.access('listActivity', {
        brand_id: a.brand.id,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await stack.admin.listKeys(a.brand.id))[0]!.revoked_at).toBeUndefined();
  });

  it('a demoted owner is refused at once, before the assertion expires', async () => {
    const t = await brandTeam();
    const second = await stack.admin.addMember({
      brandId: t.brand.id,
      email: `second-${randomHex(4)}@x.test`,
      role: 'owner',
    });
    const asSecond = await console_.actAs(
      (await console_.signIn(second.email)).sessionToken,
      t.brand.id,
    );
    await t.asOwner.access('changeMemberRole', { member_id: second.id, role: Role.ROLE_MEMBER });
    await expect(newKey(asSecond, t.brand.id)).rejects.toMatchObject({
      code: 'insufficient_permission',
    });
    await t.asOwner.access('removeMember', { member_id: second.id });
    await expect(asSecond.access('listKeys', { brand_id: t.brand.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('members through the console', () => {
  it('owners list, invite, change roles and remove; the log says who did what', async () => {
    const t = await brandTeam();
    const listed = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    expect(listed.members).toHaveLength(3);
    expect(listed.members[0]!.id).toBe(t.owner.id);

    // An invitation is pending until the person accepts it (issue 59): no member yet.
    const email = `New.Person-${randomHex(3)}@X.test`;
    const { invitation, member: none } = await t.asOwner.access('inviteMember', {
      brand_id: t.brand.id,
      email,
      role: Role.ROLE_MEMBER,
    });
    expect(none).toBeUndefined();
    expect(invitation).toMatchObject({
      email: email.toLowerCase(),
      role: Role.ROLE_MEMBER,
      state: 'pending',
      invited_by: t.owner.email,
      brand_name: t.brand.name,
    });
    await expect(
      t.asOwner.access('inviteMember', { brand_id: t.brand.id, email, role: Role.ROLE_ADMIN }),
    ).rejects.toMatchObject({ code: 'already_exists' });
    const pending = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    expect(pending.members.map((m) => m.email)).not.toContain(email.toLowerCase());

    const token = await console_.mintInvitationLink(invitation!.id);
    await console_.invitations('answerInvitation', { token, accept: true });
    const joined = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    const member = joined.members.find((m) => m.email === email.toLowerCase());
    expect(member).toMatchObject({ role: Role.ROLE_MEMBER });

    const changed = await t.asOwner.access('changeMemberRole', {
      member_id: member!.id,
      role: Role.ROLE_ADMIN,
    });
    expect(changed.member?.role).toBe(Role.ROLE_ADMIN);
    await t.asOwner.access('removeMember', { member_id: member!.id });
    const after = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    expect(after.members.map((m) => m.id)).not.toContain(member!.id);

    // invited again and accepted: back, same member, with the new role
    const again = await t.asOwner.access('inviteMember', {
      brand_id: t.brand.id,
      email,
      role: Role.ROLE_OWNER,
    });
    await console_.invitations('answerInvitation', {
      token: await console_.mintInvitationLink(again.invitation!.id),
      accept: true,
    });
    const back = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    expect(back.members.find((m) => m.id === member!.id)).toMatchObject({
      role: Role.ROLE_OWNER,
    });

    const { entries } = await t.asOwner.access('listActivity', {
      brand_id: t.brand.id,
      page_size: 6,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => e.action)).toEqual([
      'member.invitation_accepted',
      'member.invited',
      'member.removed',
      'member.role_changed',
      'member.invitation_accepted',
      'member.invited',
    ]);
    const byOwner = entries.filter((e) => !e.action.startsWith('member.invitation_accepted'));
    expect(byOwner.slice(0, 4).every((e) => e.actor_member_id === t.owner.id)).toBe(true);
    expect(
      entries.filter((e) => e.action === 'member.invitation_accepted').map((e) => e.actor_email),
    ).toEqual([email.toLowerCase(), email.toLowerCase()]);
  });

  it('only owners see or manage members', async () => {
    const t = await brandTeam();
    for (const who of [t.asAdmin, t.asMember]) {
      await expect(who.access('listMembers', { brand_id: t.brand.id })).rejects.toMatchObject({
        code: 'insufficient_permission',
      });
      await expect(
        who.access('inviteMember', {
          brand_id: t.brand.id,
          email: `x-${randomHex(3)}@x.test`,
          role: Role.ROLE_OWNER,
        }),
      ).rejects.toMatchObject({ code: 'insufficient_permission' });
      await expect(
        who.access('changeMemberRole', { member_id: t.owner.id, role: Role.ROLE_MEMBER }),
      ).rejects.toMatchObject({ code: 'insufficient_permission' });
      await expect(who.access('removeMember', { member_id: t.owner.id })).rejects.toMatchObject({
        code: 'insufficient_permission',
      });
    }
    const b = await brandTeam();
    await expect(b.asOwner.access('removeMember', { member_id: t.owner.id })).rejects.toMatchObject(
      { code: 'not_found' },
    );
    await expect(b.asOwner.access('listMembers', { brand_id: t.brand.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(
      (await stack.admin.access('listMembers', { brand_id: t.brand.id })).members,
    ).toHaveLength(3);
  });

  it('the last owner cannot be demoted or removed', async () => {
    const t = await brandTeam();
    await expect(
      t.asOwner.access('changeMemberRole', { member_id: t.owner.id, role: Role.ROLE_ADMIN }),
    ).rejects.toMatchObject({ code: 'last_owner' });
    await expect(t.asOwner.access('removeMember', { member_id: t.owner.id })).rejects.toMatchObject(
      {
        code: 'last_owner',
      },
    );
    await expect(
      stack.admin.access('removeMember', { member_id: t.owner.id }),
    ).rejects.toMatchObject({ code: 'last_owner' });

    // with a second owner, the first may step down
    const { members } = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    const admin = members.find((m) => m.role === Role.ROLE_ADMIN)!;
    await t.asOwner.access('changeMemberRole', { member_id: admin.id, role: Role.ROLE_OWNER });
    await expect(
      t.asOwner.access('changeMemberRole', { member_id: t.owner.id, role: Role.ROLE_MEMBER }),
    ).resolves.toMatchObject({ member: { role: Role.ROLE_MEMBER } });
  });

  it('two owners demoting each other at once leave one owner', async () => {
    const t = await brandTeam();
    const { members } = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    const admin = members.find((m) => m.role === Role.ROLE_ADMIN)!;
    await t.asOwner.access('changeMemberRole', { member_id: admin.id, role: Role.ROLE_OWNER });
    const outcomes = await Promise.allSettled([
      stack.admin.access('changeMemberRole', { member_id: t.owner.id, role: Role.ROLE_MEMBER }),
      stack.admin.access('changeMemberRole', { member_id: admin.id, role: Role.ROLE_MEMBER }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const { rows } = await stack.db.pool.query<{ n: number }>(
      `select count(*)::int as n from records.brand_members
       where brand_id = $1 and role = 'owner' and removed_at is null`,
      [t.brand.id],
    );
    expect(rows[0]!.n).toBe(1);
  });
});

describe('members an operator adds (brandctl member add)', () => {
  it('brings a removed member back with the given role; a current one is already_exists', async () => {
    const t = await brandTeam();
    const email = `back-${randomHex(4)}@brand.test`;
    const added = await stack.admin.addMember({ brandId: t.brand.id, email, role: 'member' });
    await expect(
      stack.admin.addMember({ brandId: t.brand.id, email, role: 'admin' }),
    ).rejects.toMatchObject({ code: 'already_exists' });
    await t.asOwner.access('removeMember', { member_id: added.id });

    // Removed, then added again by an operator: the same member, now an admin (an invitation
    // accepted or SCIM bring a removed member back the same way).
    const back = await stack.admin.addMember({ brandId: t.brand.id, email, role: 'admin' });
    expect(back).toMatchObject({ id: added.id, email });
    const listed = await t.asOwner.access('listMembers', { brand_id: t.brand.id });
    expect(listed.members.find((m) => m.email === email)).toMatchObject({
      id: added.id,
      role: Role.ROLE_ADMIN,
    });
  });
});

describe('member assertions records refuses', () => {
  it('no assertion, a forged one, a stale one: unauthenticated, nothing changes', async () => {
    const t = await brandTeam();
    const claims = {
      brand_id: t.brand.id,
      member_id: t.owner.id,
      email: t.owner.email,
      role: 'owner' as const,
      tier: 'plus' as const,
    };
    const otherKey = generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const bad = [
      '',
      signTestAssertion(claims, { privateKeyPem: otherKey }),
      signTestAssertion(claims, { nowMs: Date.now() - 120_000 }),
      `${t.asOwner.assertion.slice(0, -3)}AAA`,
    ];
    for (const assertion of bad) {
      await expect(
        newKey({ ...t.asOwner, access: console_.accessWith(assertion) }, t.brand.id),
      ).rejects.toMatchObject({ code: 'unauthenticated' });
    }
    expect(await stack.admin.listKeys(t.brand.id)).toEqual([]);
  });
});

describe('ListActivity paging', () => {
  it('walks newest first with page tokens and refuses bad ones', async () => {
    const t = await brandTeam();
    for (let i = 0; i < 3; i++) await newKey(t.asOwner, t.brand.id);
    const all = await t.asOwner.access('listActivity', {
      brand_id: t.brand.id,
      page_size: 200,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    const seen: string[] = [];
    let token = '';
    do {
      const page = await t.asOwner.access('listActivity', {
        brand_id: t.brand.id,
        page_size: 2,
        page_token: token,
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      });
      seen.push(...page.entries.map((e) => e.id));
      token = page.next_page_token;
    } while (token !== '');
    expect(seen).toEqual(all.entries.map((e) => e.id));
    expect(all.entries.length).toBeGreaterThanOrEqual(6); // 3 sign-ins, 3 keys
    await expect(
      t.asOwner.access('listActivity', {
        brand_id: t.brand.id,
        page_size: 2,
        page_token: 'x',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
    ).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(
      t.asOwner.access('listActivity', {
        brand_id: t.brand.id,
        page_size: 201,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
