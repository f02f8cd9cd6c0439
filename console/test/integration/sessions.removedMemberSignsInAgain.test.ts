// A hostile review of sign-in (2026-12-01): docs/console.md promises that "a removed member
// invited back starts from a new sign-in", and that removing a member ends their access to the
// brand at once. Sessions opened by an emailed link or a passkey belong to the address and keep
// its other brands, so they live on after a removal; records read the address's memberships
// afresh on every request, so the moment the address was a member again (an invitation accepted,
// an operator, SCIM) every one of those old sessions opened the brand again, with no sign-in.
// An owner who removes a member because a device or session of theirs was taken, then invites
// them back, let the taker's session straight back in (it could even accept the invitation).
// Real records, console and SMTP sink; the person's sessions are an emailed link's and a
// passkey's, opened before the removal. (An operator adding the removed member back, the other
// way in, is refused today with already_exists: records' AddMember does not restore a removed
// membership, so that path cannot reopen anything.)
import { randomHex } from '@brand/testkit';
import { type ConsoleHttp, csrfOf } from '../browserlessClient';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { addPasskey, signInWithPasskey } from '../passkeyActors';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack();
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** A form post on `page`, with that page's CSRF token. */
async function postFrom(http: ConsoleHttp, page: string, path: string, form = {}) {
  const csrf = csrfOf((await http.get(page)).body);
  return http.post(path, { _csrf: csrf, ...form });
}

/** The status each session gets from the brand's overview (200: the session opens it). */
const statusesAt = (brandId: string, sessions: ConsoleHttp[]) =>
  Promise.all(sessions.map(async (s) => (await s.get(`/brands/${brandId}`)).status));

async function memberIdOf(brandId: string, email: string): Promise<string> {
  const { rows } = await cs.stack.db.pool.query<{ id: string }>(
    `select id from records.brand_members where brand_id = $1 and email = $2 and removed_at is null`,
    [brandId, email],
  );
  return rows[0]!.id;
}

describe('a member removed, then a member again', () => {
  it('the sessions they had before the removal do not open the brand again; a new sign-in does', async () => {
    const { brand: b, owner } = await brandWithOwner(cs);
    const { brand: other } = await brandWithOwner(cs);
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: b.id, email, role: 'admin' });
    await cs.stack.admin.addMember({ brandId: other.id, email, role: 'member' });
    const ownerHttp = await signInHttp(cs, owner.email);

    // The person's sessions: an emailed link's and a passkey's (say one is on a stolen laptop).
    const linked = await signInHttp(cs, email);
    const added = await addPasskey(cs, linked, 'Laptop');
    expect(added.status).toBe(303);
    const { http: passkey } = await signInWithPasskey(cs, added.authenticator);
    const old = [linked, passkey];
    const seen: Record<string, unknown> = { before: await statusesAt(b.id, old) };

    const members = `/brands/${b.id}/members`;
    const removeAt = `${members}/${await memberIdOf(b.id, email)}/remove`;
    seen.removed = (await postFrom(ownerHttp, members, removeAt)).status;
    seen.afterRemoval = await statusesAt(b.id, old);

    // Invited back, and accepted from one of the old sessions ("Invitations").
    seen.invited = (await postFrom(ownerHttp, members, members, { email, role: 'admin' })).status;
    const page = await linked.get('/invitations');
    const id = /action="\/invitations\/(inv_[A-Za-z0-9]+)\/accept"/.exec(page.body)?.[1];
    const accepted = await linked.post(`/invitations/${id}/accept`, { _csrf: csrfOf(page.body) });
    // it is accepted, and the person is sent to sign in again, then to the brand
    seen.accepted = [accepted.status, accepted.location];

    seen.oldSessionsAtB = await statusesAt(b.id, old);
    seen.oldSessionsAtOther = await statusesAt(other.id, old);
    seen.oldSessionsListB = await Promise.all(
      old.map(async (s) => (await s.get('/brands')).body.includes(`/brands/${b.id}`)),
    );
    seen.newLinkSession = (await statusesAt(b.id, [await signInHttp(cs, email)]))[0];
    seen.newPasskeySession = (
      await statusesAt(b.id, [(await signInWithPasskey(cs, added.authenticator)).http])
    )[0];

    expect(seen).toEqual({
      before: [200, 200],
      removed: 303,
      afterRemoval: [404, 404],
      invited: 303,
      accepted: [303, `/sign-in?next=${encodeURIComponent(`/brands/${b.id}`)}`],
      oldSessionsAtB: [404, 404],
      oldSessionsAtOther: [200, 200],
      oldSessionsListB: [false, false],
      newLinkSession: 200,
      newPasskeySession: 200,
    });
  });
});
