// Through the console's HTTP surface: a member adds a passkey (WebAuthn registration verified by
// records) and signs in with it instead of a link; lists and removes it; an owner requires a
// passkey or SSO for the brand, after which a session opened by an emailed link no longer opens
// that brand. The authenticator is a software one (console/test/softAuthenticator.ts) making real
// P-256 signatures; real records, webhooks, plans, gateway, SMTP sink and console.
import { randomHex } from '@brand/testkit';
import { csrfOf } from '../browserlessClient';
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

describe('passkeys', () => {
  it('adds a passkey, signs in with it instead of a link, and removes it', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const linked = await signInHttp(cs, owner.email);
    const added = await addPasskey(cs, linked, 'Work laptop');
    expect(added).toMatchObject({ status: 303, location: '/passkeys?done=added' });
    const list = await linked.get('/passkeys');
    expect(list.body).toContain('<td>Work laptop</td>');

    const { http, answer } = await signInWithPasskey(cs, added.authenticator);
    expect(answer).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
    expect(answer.headers.get('set-cookie')).toMatch(/^__Host-console_session=[A-Za-z0-9_-]{43}; /);
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(200);
    expect((await http.get('/sessions')).body).toMatch(/this session[\s\S]*by passkey/);
    // The use is recorded: last used, the member's last sign-in, the activity.
    expect((await http.get('/passkeys')).body).not.toMatch(
      /<td><span class="hint">Never<\/span><\/td>/,
    );
    const members = await http.get(`/brands/${brand.id}/members`);
    // the page's text, its markup (a time's parts, the hint) taken out
    expect(members.body.replace(/<[^>]+>/g, '')).toMatch(/UTC by passkey/);
    const { rows } = await cs.stack.db.pool.query<{ action: string; summary: string }>(
      `select action, summary from records.activity where brand_id = $1 order by created_at, id`,
      [brand.id],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          action: 'member.passkey_added',
          summary: `${owner.email} added the passkey “Work laptop”`,
        },
        { action: 'member.signed_in', summary: `${owner.email} signed in with a passkey` },
      ]),
    );

    const page = await http.get('/passkeys');
    const id = /action="\/passkeys\/(pk_[A-Za-z0-9]+)\/remove"/.exec(page.body)![1]!;
    const removed = await http.post(`/passkeys/${id}/remove`, { _csrf: csrfOf(page.body) });
    expect(removed).toMatchObject({ status: 303, location: '/passkeys?done=removed' });
    expect((await http.get('/passkeys')).body).toContain('You have no passkey yet.');
    const after = await signInWithPasskey(cs, added.authenticator);
    expect(after.answer.status).toBe(401);
    expect(after.answer.headers.get('set-cookie')).toBeNull();
  });

  it('lets a link session add the first passkey only; more need a passkey session', async () => {
    const { owner } = await brandWithOwner(cs);
    const linked = await signInHttp(cs, owner.email);
    const first = await addPasskey(cs, linked, 'Laptop');
    expect(first.status).toBe(303);
    const csrf = csrfOf((await linked.get('/passkeys')).body);
    const refused = await linked.post('/passkeys/options', { _csrf: csrf });
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'passkey_session_required' });

    const { http } = await signInWithPasskey(cs, first.authenticator);
    const second = await addPasskey(cs, http, 'Security key');
    expect(second.status).toBe(303);
    const names = [
      ...(await http.get('/passkeys')).body.matchAll(
        /<td>([^<]+)<\/td>\s*<td><time datetime="\d{4}/g,
      ),
    ];
    expect(names.map((m) => m[1])).toEqual(['Laptop', 'Security key']);
  });

  it('refuses a nameless passkey with 400 on the form, and sends JSON options only with the session token', async () => {
    const { owner } = await brandWithOwner(cs);
    const linked = await signInHttp(cs, owner.email);
    const noToken = await linked.post('/passkeys/options', {});
    expect(noToken.status).toBe(403);
    const nameless = await addPasskey(cs, linked, '   ');
    expect(nameless.status).toBe(400);
    expect(nameless.body).toContain('Give the passkey a name');
    expect((await linked.get('/passkeys')).body).toContain('You have no passkey yet.');
  });
});

describe('requiring a passkey or SSO', () => {
  it('is set by an owner from a passkey session, and then a link session no longer opens the brand', async () => {
    const { brand, owner } = await brandWithOwner(cs);
    const memberEmail = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: memberEmail, role: 'member' });
    const linked = await signInHttp(cs, owner.email);
    const { authenticator } = await addPasskey(cs, linked, 'Laptop');

    // From the link session: refused, nothing changes.
    const page = await linked.get(`/brands/${brand.id}/members`);
    const refused = await linked.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(page.body),
      policy: 'passkey_or_sso',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('Sign in with a passkey to change how members sign in');

    const { http } = await signInWithPasskey(cs, authenticator);
    const members = await http.get(`/brands/${brand.id}/members`);
    const bad = await http.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(members.body),
      policy: 'nothing',
    });
    expect(bad.status).toBe(400);
    const set = await http.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(members.body),
      policy: 'passkey_or_sso',
    });
    expect(set).toMatchObject({ status: 303, location: `/brands/${brand.id}/members?done=policy` });
    expect((await http.get(`/brands/${brand.id}/members`)).body).toMatch(
      /value="passkey_or_sso" checked/,
    );

    // Link sessions, the owner's and a member's, no longer open the brand; the passkey one does.
    const member = await signInHttp(cs, memberEmail);
    for (const s of [linked, member]) {
      const res = await s.get(`/brands/${brand.id}/keys`);
      expect(res.status).toBe(403);
      expect(res.headers.get('x-console-error')).toBe('sign_in_method_required');
    }
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(200);
    // The member can still reach "Your passkeys" to add one.
    expect((await member.get('/passkeys')).status).toBe(200);

    const lifted = await http.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(members.body),
      policy: 'any',
    });
    expect(lifted.status).toBe(303);
    expect((await member.get(`/brands/${brand.id}/keys`)).status).toBe(200);
    const { rows } = await cs.stack.db.pool.query<{ summary: string }>(
      `select summary from records.activity
       where brand_id = $1 and action = 'brand.sign_in_policy_changed' order by created_at, id`,
      [brand.id],
    );
    expect(rows.map((r) => r.summary)).toEqual([
      'Members must sign in with a passkey',
      'Members may sign in by emailed link again',
    ]);
  });
});
