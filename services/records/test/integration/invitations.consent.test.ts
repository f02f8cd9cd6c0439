// Membership by consent (issue 59 part 1): an owner's invitation is pending until the invited
// person accepts it, by the mailed link's token or from a session of theirs that proves the
// address; it grants nothing meanwhile, may be declined, withdrawn, or expire, and one brand
// cannot fill a mailbox with them. Real records and PostgreSQL; the console's credential claims
// the mails as its mail loop does.
import { createHash, randomBytes } from 'node:crypto';
import { Role } from '@brand/proto/access/v1';
import {
  createConsoleClient,
  randomHex,
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

/** A verified Plus brand and its owner acting through the console. */
async function brandWithOwner(): Promise<{ brandId: string; asOwner: ActingMember }> {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const session = (await console_.signIn(owner.email)).sessionToken;
  return { brandId: brand.id, asOwner: await console_.actAs(session, brand.id) };
}

/** A person who already uses the console for a brand of their own: their link session. */
async function person(): Promise<{ email: string; session: string; brandId: string }> {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `person-${randomHex(4)}@elsewhere.test`,
  });
  return {
    email: owner.email,
    session: (await console_.signIn(owner.email)).sessionToken,
    brandId: brand.id,
  };
}

const invite = (asOwner: ActingMember, brandId: string, email: string, role = Role.ROLE_ADMIN) =>
  asOwner.access('inviteMember', { brand_id: brandId, email, role });

const memberOf = async (brandId: string, email: string) =>
  (
    await stack.db.pool.query<{ role: string }>(
      `select role from records.brand_members
        where brand_id = $1 and email = $2 and removed_at is null`,
      [brandId, email],
    )
  ).rows[0]?.role;

const resolve = (session: string, brandId: string) =>
  console_.sessions('resolveConsoleSession', { session_token: session, brand_id: brandId });

describe('an invitation', () => {
  it('grants nothing until the person accepts it by the mailed link', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const p = await person();
    const { invitation } = await invite(asOwner, brandId, p.email, Role.ROLE_ADMIN);
    expect(invitation).toMatchObject({ state: 'pending', email: p.email, role: Role.ROLE_ADMIN });
    expect(await memberOf(brandId, p.email)).toBeUndefined();
    await expect(resolve(p.session, brandId)).rejects.toMatchObject({ code: 'not_found' });
    const listed = await asOwner.invitations('listBrandInvitations', { brand_id: brandId });
    expect(listed.invitations.map((i) => i.id)).toEqual([invitation!.id]);

    const token = await console_.mintInvitationLink(invitation!.id);
    const shown = await console_.invitations('showInvitation', { token });
    expect(shown.invitation).toMatchObject({ id: invitation!.id, state: 'pending' });
    const answered = await console_.invitations('answerInvitation', { token, accept: true });
    expect(answered.invitation?.state).toBe('accepted');
    expect(await memberOf(brandId, p.email)).toBe('admin');
    // The person's session, unchanged, now opens the brand as well as their own.
    await expect(resolve(p.session, brandId)).resolves.toMatchObject({ brand: { id: brandId } });
    await expect(resolve(p.session, p.brandId)).resolves.toMatchObject({
      brand: { id: p.brandId },
    });
    // Answered once: the link shows it, and answers nothing more.
    await expect(
      console_.invitations('answerInvitation', { token, accept: false }),
    ).rejects.toMatchObject({ code: 'invitation_closed' });
    expect((await console_.invitations('showInvitation', { token })).invitation?.state).toBe(
      'accepted',
    );
    expect(
      (await asOwner.invitations('listBrandInvitations', { brand_id: brandId })).invitations,
    ).toEqual([]);
  });

  it('is answered from the person’s own session, and declining adds nothing', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const other = await brandWithOwner();
    const p = await person();
    await invite(asOwner, brandId, p.email);
    await invite(other.asOwner, other.brandId, p.email, Role.ROLE_MEMBER);
    const own = await console_.invitations('listOwnInvitations', { session_token: p.session });
    expect(own.invitations.map((i) => i.brand_id).sort()).toEqual([brandId, other.brandId].sort());
    const mine = own.invitations.find((i) => i.brand_id === brandId)!;
    const theirs = own.invitations.find((i) => i.brand_id === other.brandId)!;
    await console_.invitations('answerOwnInvitation', {
      session_token: p.session,
      invitation_id: mine.id,
      accept: false,
    });
    expect(await memberOf(brandId, p.email)).toBeUndefined();
    await console_.invitations('answerOwnInvitation', {
      session_token: p.session,
      invitation_id: theirs.id,
      accept: true,
    });
    expect(await memberOf(other.brandId, p.email)).toBe('member');
    // Another address cannot answer them, whatever it knows of the id.
    const stranger = await person();
    for (const id of [mine.id, theirs.id]) {
      await expect(
        console_.invitations('answerOwnInvitation', {
          session_token: stranger.session,
          invitation_id: id,
          accept: true,
        }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
    const { entries } = await asOwner.access('listActivity', {
      brand_id: brandId,
      page_size: 2,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => [e.action, e.actor_email])).toEqual([
      ['member.invitation_declined', p.email],
      ['member.invited', asOwner.resolved.email],
    ]);
  });

  it('cannot be answered from a session a brand’s single sign-on opened', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const p = await person();
    await invite(asOwner, brandId, p.email);
    const token = randomBytes(32).toString('base64url');
    await stack.db.pool.query(
      `insert into records.console_sessions
         (id, token_hash, email, csrf_secret, expires_at, sign_in_method, sso_brand_id,
          acted_brand_ids)
       values ($1, $2, $3, 'csrf', now() + interval '1 hour', 'sso', $4, array[$4])`,
      [`ses_${randomHex(8)}`, createHash('sha256').update(token).digest(), p.email, p.brandId],
    );
    await expect(
      console_.invitations('listOwnInvitations', { session_token: token }),
    ).rejects.toMatchObject({ code: 'address_proof_required' });
  });

  it('is withdrawn by the brand’s owners only, and its link then answers nothing', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const other = await brandWithOwner();
    const p = await person();
    const { invitation } = await invite(asOwner, brandId, p.email);
    const token = await console_.mintInvitationLink(invitation!.id);
    await expect(
      other.asOwner.invitations('withdrawInvitation', { invitation_id: invitation!.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const withdrawn = await asOwner.invitations('withdrawInvitation', {
      invitation_id: invitation!.id,
    });
    expect(withdrawn.invitation?.state).toBe('withdrawn');
    await expect(
      console_.invitations('answerInvitation', { token, accept: true }),
    ).rejects.toMatchObject({ code: 'invitation_closed' });
    await expect(
      asOwner.invitations('withdrawInvitation', { invitation_id: invitation!.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await memberOf(brandId, p.email)).toBeUndefined();
  });

  it('expires after seven days, and inviting again replaces it', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const p = await person();
    const { invitation } = await invite(asOwner, brandId, p.email);
    expect(Date.parse(invitation!.expires_at) - Date.parse(invitation!.created_at)).toBe(
      7 * 24 * 3_600_000,
    );
    const token = await console_.mintInvitationLink(invitation!.id);
    await stack.db.pool.query(
      `update records.member_invitations set expires_at = now() - interval '1 second' where id = $1`,
      [invitation!.id],
    );
    await expect(
      console_.invitations('answerInvitation', { token, accept: true }),
    ).rejects.toMatchObject({
      code: 'invitation_closed',
      message: expect.stringMatching(/expired/) as unknown,
    });
    const listed = await asOwner.invitations('listBrandInvitations', { brand_id: brandId });
    expect(listed.invitations.map((i) => i.state)).toEqual(['expired']);
    expect(
      (await console_.invitations('listOwnInvitations', { session_token: p.session })).invitations,
    ).toEqual([]);
    const again = await invite(asOwner, brandId, p.email);
    expect(again.invitation?.state).toBe('pending');
    const after = await asOwner.invitations('listBrandInvitations', { brand_id: brandId });
    expect(after.invitations.map((i) => i.id)).toEqual([again.invitation!.id]);
  });

  it('is refused for a member, while one is pending, and past three to one address a day', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const owner = asOwner.resolved.email;
    await expect(invite(asOwner, brandId, owner)).rejects.toMatchObject({
      code: 'already_exists',
    });
    const p = await person();
    for (let i = 0; i < 3; i++) {
      const { invitation } = await invite(asOwner, brandId, p.email);
      await expect(invite(asOwner, brandId, p.email)).rejects.toMatchObject({
        code: 'already_exists',
      });
      await asOwner.invitations('withdrawInvitation', { invitation_id: invitation!.id });
    }
    await expect(invite(asOwner, brandId, p.email)).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it('mails the invited address only: each mail’s link replaces the last, and a withdrawn one is not mailed', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const p = await person();
    const first = await invite(asOwner, brandId, p.email);
    const mails = await console_.invitations('claimMemberMails', { limit: 100, lease_ms: 1_000 });
    const mine = mails.mails.filter((m) => m.invitation?.id === first.invitation!.id);
    expect(mine).toMatchObject([{ kind: 'invitation', email: p.email, brand_id: brandId }]);
    const older = mine[0]!.token;
    // Not confirmed: the lease runs out and the mail comes back, with a new link.
    await new Promise((r) => setTimeout(r, 1_100));
    const newer = await console_.mintInvitationLink(first.invitation!.id);
    expect(newer).not.toBe(older);
    await expect(console_.invitations('showInvitation', { token: older })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(console_.invitations('showInvitation', { token: newer })).resolves.toMatchObject({
      invitation: { id: first.invitation!.id },
    });

    // Withdrawn before its mail went out: nothing is mailed.
    const q = await person();
    const second = await invite(asOwner, brandId, q.email);
    await asOwner.invitations('withdrawInvitation', { invitation_id: second.invitation!.id });
    const after = await console_.invitations('claimMemberMails', { limit: 100, lease_ms: 1_000 });
    expect(after.mails.map((m) => m.invitation?.id)).not.toContain(second.invitation!.id);
  });

  it('never ends the person’s own sign-in link (issue 59 part 7)', async () => {
    const { brandId, asOwner } = await brandWithOwner();
    const p = await person();
    const link = await console_.mintLink(p.email);
    const { invitation } = await invite(asOwner, brandId, p.email);
    await console_.mintInvitationLink(invitation!.id);
    const opened = await console_.sessions('redeemSignInLink', {
      token: link,
      client: { user_agent: 'test', address: '127.0.0.1' },
    });
    expect(opened.session_token).not.toBe('');
    // Its brands are the ones the person accepted: not the inviting brand.
    expect(opened.brands.map((m) => m.brand?.id)).toEqual([p.brandId]);
  });

  it('answers hostile input with 4xx codes', async () => {
    const { asOwner } = await brandWithOwner();
    for (const token of ['', 'short', 'x'.repeat(43), `${'a'.repeat(42)}!`]) {
      await expect(console_.invitations('showInvitation', { token })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(
        console_.invitations('answerInvitation', { token, accept: true }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
    for (const id of ['', 'inv_', 'mem_abc', `inv_${'a'.repeat(65)}`, "inv_a' or 1=1"]) {
      await expect(
        asOwner.invitations('withdrawInvitation', { invitation_id: id }),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    }
    await expect(
      asOwner.access('inviteMember', {
        brand_id: asOwner.resolved.brand!.id,
        email: 'nope',
        role: 3,
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      console_.invitations('claimMemberMails', { limit: 0, lease_ms: 1_000 }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      console_.invitations('completeMemberMails', { ids: ['not-a-mail'] }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('is not needed by an operator, who adds a member directly', async () => {
    const { brandId } = await brandWithOwner();
    const email = `ops-added-${randomHex(4)}@brand.test`;
    await stack.admin.addMember({ brandId, email, role: 'member' });
    expect(await memberOf(brandId, email)).toBe('member');
  });
});
