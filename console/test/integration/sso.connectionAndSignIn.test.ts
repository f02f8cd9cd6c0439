// Issue 37 item 1, single sign-on per brand, through the console's HTTP surface: an owner
// connects the brand's identity provider, members sign in through it (authorization code with
// PKCE, records checking the ID token with openid-client), an owner requires it. The provider
// is real: oidc-provider in a child process (packages/testkit/src/testIdp.ts), its login form
// driven as a browser would. Real records, webhooks, plans, gateway, SMTP sink and console.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { randomHex, TEST_WEBHOOK_SECRET_KEY, waitFor } from '@brand/testkit';
import { SecretBox } from '@brand/shared/secrets';
import { ConsoleHttp, csrfOf, headerSignedInAs } from '../browserlessClient';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  authorizationUrlOf,
  brandWithSso,
  IdpBrowser,
  idpClient,
  providerSetLongAgo,
  signInWithSso,
  startSso,
  startTestIdp,
} from '../ssoActors';
import type { TestIdp } from '@brand/testkit';

let cs: ConsoleStack;
let idp: TestIdp;
const clients = Array.from({ length: 16 }, (_, i) => `c${i}`);
let registered: ReturnType<typeof idpClient>[];

beforeAll(async () => {
  cs = await startConsoleStack();
  registered = clients.map((name) => idpClient(cs, name));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/** A raw mail with its quoted-printable encoding undone (soft line breaks, =XX bytes). */
const quotedPrintable = (raw: string): string =>
  Buffer.from(
    raw
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** The newest mail to `email` as its raw text (soft line breaks joined), waiting for it. */
async function mailTo(email: string): Promise<string> {
  let text = '';
  await waitFor(
    () => {
      const file = readdirSync(cs.mailDir)
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .reverse()
        .map((f) => quotedPrintable(readFileSync(path.join(cs.mailDir, f), 'latin1')))
        .find((raw) => new RegExp(`^To: <?${email}>?`, 'mi').test(raw));
      text = file ?? '';
      return file !== undefined;
    },
    { timeoutMs: 15_000, what: `a mail to ${email}` },
  );
  return text;
}

/** The next unused client at the provider: one per brand connection. */
let next = 0;
const nextClient = () => registered[next++]!;

describe('connecting the identity provider', () => {
  it('is an owner’s act; the secret is sealed at rest and never shown again', async () => {
    const client = nextClient();
    const { brand, domain, owner: brandOwner, ownerHttp } = await brandWithSso(cs, idp, client);
    const page = await ownerHttp.get(`/brands/${brand.id}/sso`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`On: ${idp.issuer}, for ${domain}.`);
    expect(page.body).toContain(`${cs.url}/sign-in/sso/callback`);
    expect(page.body).not.toContain(client.client_secret);

    const { rows } = await cs.stack.db.pool.query<{
      client_secret_ciphertext: Buffer;
      client_secret_key_id: string;
    }>(`select * from records.sso_connections where brand_id = $1`, [brand.id]);
    const row = rows[0]!;
    expect(JSON.stringify(rows)).not.toContain(client.client_secret);
    expect(row.client_secret_ciphertext.toString('latin1')).not.toContain(client.client_secret);
    // Sealed like receivers' secrets: the same key, the brand id bound in.
    const box = new SecretBox(TEST_WEBHOOK_SECRET_KEY);
    expect(row.client_secret_key_id).toBe(box.currentKeyId);
    expect(
      box.open(
        { ciphertext: row.client_secret_ciphertext, keyId: row.client_secret_key_id },
        brand.id,
      ),
    ).toBe(client.client_secret);
    expect(() =>
      box.open(
        { ciphertext: row.client_secret_ciphertext, keyId: row.client_secret_key_id },
        'br_other',
      ),
    ).toThrow();

    // Saving again without a secret keeps the stored one (it still signs members in). The
    // connection is in use, so the change comes from a fresh sign-in through it (issue 42).
    const owner = brandOwner.email;
    idp.addUser({ email: owner, password: 'pw-owner' });
    const { http: fresh } = await signInWithSso(cs, { email: owner, password: 'pw-owner' });
    const freshPage = await fresh.get(`/brands/${brand.id}/sso`);
    const kept = await fresh.post(`/brands/${brand.id}/sso`, {
      _csrf: csrfOf(freshPage.body),
      issuer: idp.issuer,
      client_id: client.client_id,
      client_secret: '',
      allowed_domains: `${domain}\nother-${domain}`,
      enabled: 'on',
    });
    expect(kept).toMatchObject({ status: 303, location: `/brands/${brand.id}/sso?done=saved` });
    const { rows: activity } = await cs.stack.db.pool.query<{ action: string; summary: string }>(
      `select action, summary from records.activity
       where brand_id = $1 and action like 'brand.sso%' order by created_at, id`,
      [brand.id],
    );
    expect(activity).toEqual([
      {
        action: 'brand.sso_connected',
        summary: `Single sign-on connected: ${idp.issuer}, ${domain}`,
      },
      {
        action: 'brand.sso_domain_verified',
        summary: `Single sign-on domain verified by DNS: ${domain}`,
      },
      {
        action: 'brand.sso_changed',
        summary: `Single sign-on changed: ${idp.issuer}, ${domain}, other-${domain}`,
      },
    ]);
    expect(JSON.stringify(activity)).not.toContain(client.client_secret);
  });

  it('refuses an issuer that answers no discovery document, and plain http beyond loopback', async () => {
    const { brand, owner } = await brandWithSso(cs, idp, nextClient());
    idp.addUser({ email: owner.email, password: 'pw-owner' });
    // a fresh sign-in through it: the connection is in use (issue 42)
    const { http: ownerHttp } = await signInWithSso(cs, {
      email: owner.email,
      password: 'pw-owner',
    });
    const page = await ownerHttp.get(`/brands/${brand.id}/sso`);
    for (const issuer of [
      'http://login.example.com',
      'http://127.0.0.1:9',
      `${idp.issuer}/elsewhere`,
    ]) {
      const res = await ownerHttp.post(`/brands/${brand.id}/sso`, {
        _csrf: csrfOf(page.body),
        issuer,
        client_id: 'x',
        client_secret: 'y',
        allowed_domains: 'example.com',
        enabled: 'on',
      });
      expect({ issuer, status: res.status }).toEqual({ issuer, status: 400 });
      // a sentence naming the issuer in words, not our field path ("issuer: ...")
      expect(res.body).toMatch(/The issuer /);
      expect(res.body).not.toMatch(/issuer: /);
    }
    // The connection stands as it was.
    expect((await ownerHttp.get(`/brands/${brand.id}/sso`)).body).toContain(`On: ${idp.issuer}`);
  });

  it('is owners’ only: other roles see why, and cannot change it; another brand’s is 404', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, nextClient());
    const adminEmail = `admin@${domain}`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: adminEmail, role: 'admin' });
    const admin = await signInHttp(cs, adminEmail);
    const page = await admin.get(`/brands/${brand.id}/sso`);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Only brand owners connect');
    const csrf = csrfOf((await admin.get(`/brands/${brand.id}/keys`)).body);
    const post = await admin.post(`/brands/${brand.id}/sso/remove`, { _csrf: csrf });
    expect(post.status).toBe(403);
    expect(post.headers.get('x-console-error')).toBe('insufficient_permission');

    const other = await brandWithSso(cs, idp, nextClient());
    expect((await other.ownerHttp.get(`/brands/${brand.id}/sso`)).status).toBe(404);
    const otherCsrf = csrfOf((await other.ownerHttp.get(`/brands/${other.brand.id}/sso`)).body);
    const removed = await other.ownerHttp.post(`/brands/${brand.id}/sso/remove`, {
      _csrf: otherCsrf,
    });
    expect(removed.status).toBe(404);
    expect(
      (await signInHttp(cs, `owner@${domain}`).then((h) => h.get(`/brands/${brand.id}/sso`))).body,
    ).toContain('On: ');
  });
});

describe('signing in with single sign-on', () => {
  it('opens a session for that brand only, recorded as single sign-on', async () => {
    const { brand, domain, owner } = await brandWithSso(cs, idp, nextClient());
    // The owner is also a member of another brand: the provider does not vouch for them there.
    const second = await cs.stack.admin.createBrand({
      tier: 'plus',
      verified: true,
      ownerEmail: `someone-${randomHex(3)}@elsewhere.test`,
    });
    await cs.stack.admin.addMember({ brandId: second.brand.id, email: owner.email, role: 'owner' });
    idp.addUser({ email: owner.email, password: 'pw-owner' });

    const { http, answer } = await signInWithSso(cs, { email: owner.email, password: 'pw-owner' });
    expect(answer).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
    expect(answer.headers.get('set-cookie')).toMatch(/__Host-console_session=[A-Za-z0-9_-]{43}; /);
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(200);
    expect((await http.get(`/brands/${second.brand.id}/keys`)).status).toBe(404);
    const brands = await http.get('/brands');
    expect(brands.body).not.toContain(second.brand.id);
    expect((await http.get('/sessions')).body).toMatch(/this session[\s\S]*by single sign-on/);
    // the page's text, its markup (a time's parts, the hint) taken out
    expect((await http.get(`/brands/${brand.id}/members`)).body.replace(/<[^>]+>/g, '')).toMatch(
      /UTC by single sign-on/,
    );
    const { rows } = await cs.stack.db.pool.query<{ brand_id: string; summary: string }>(
      `select brand_id, summary from records.activity
       where action = 'member.signed_in' and actor_email = $1 and summary like '%single sign-on'`,
      [owner.email],
    );
    expect(rows).toEqual([
      { brand_id: brand.id, summary: `${owner.email} signed in with single sign-on` },
    ]);
    // The other brand's member row was not told of a sign-in there.
    const { rows: members } = await cs.stack.db.pool.query<{ brand_id: string; m: string | null }>(
      `select brand_id, last_used_method as m from records.brand_members where email = $1 order by brand_id`,
      [owner.email],
    );
    expect(members.find((m) => m.brand_id === brand.id)?.m).toBe('sso');
    expect(members.find((m) => m.brand_id === second.brand.id)?.m).not.toBe('sso');
    expect(domain).toMatch(/^sso-/);
  });

  // A hostile review (2026-11-30): the callback cleared the browser binding at every hit, so a
  // cross-site page that sent the browser to /sign-in/sso/callback?state=junk (the cookie is
  // SameSite=Lax: a top-level navigation carries it) cancelled a sign-in in progress.
  it('keeps a sign-in in progress through a callback with a state that is not its own', async () => {
    const { brand, owner } = await brandWithSso(cs, idp, nextClient());
    idp.addUser({ email: owner.email, password: 'pw-owner' });
    const { http, answer: started } = await startSso(cs, { email: owner.email });
    expect(started.status).toBe(200);
    const { callbackUrl } = await new IdpBrowser().authorize(
      authorizationUrlOf(started.body),
      cs.url,
      { email: owner.email, password: 'pw-owner' },
    );
    const junk = await http.get('/sign-in/sso/callback?state=junk-state&code=junk-code');
    expect(junk.status).toBe(400);
    const answer = await http.get(callbackUrl!.slice(cs.url.length));
    expect(answer).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
  });

  it('reads the provider’s discovery document once, not at each sign-in', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, nextClient());
    const members = [1, 2, 3].map((i) => ({
      email: `member${i}-${randomHex(3)}@${domain}`,
      password: `pw-${randomHex(4)}`,
    }));
    for (const m of members) {
      await cs.stack.admin.addMember({ brandId: brand.id, email: m.email, role: 'member' });
      idp.addUser(m);
    }
    const asked = () => ({
      discovery: idp.requests('/.well-known/openid-configuration'),
      tokens: idp.requests('/token'),
    });
    const before = asked();
    for (const m of members) {
      const { answer } = await signInWithSso(cs, m);
      expect(answer).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
    }
    const after = asked();
    // three sign-ins, each a start and a callback (before: six discoveries); the connection's
    // save read it too, afresh, before these
    expect(after.tokens - before.tokens).toBe(3);
    expect(after.discovery - before.discovery).toBe(1);
  });

  it('from the brand’s SSO link with no address typed, and with the sign-in page’s address', async () => {
    const { brand, owner } = await brandWithSso(cs, idp, nextClient());
    idp.addUser({ email: owner.email, password: 'pw' });
    const viaLink = await signInWithSso(
      cs,
      { email: owner.email, password: 'pw' },
      { brand: brand.id },
    );
    expect(viaLink.answer).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
    const unknown = await cs.stack.admin.createBrand({ tier: 'plus', verified: true });
    const none = await signInWithSso(cs, { email: 'x@nowhere-sso.test', password: 'pw' });
    expect(none.answer.status).toBe(404);
    expect(none.answer.body).toContain('No brand has single sign-on for this address');
    const noConnection = await signInWithSso(
      cs,
      { email: '', password: 'pw' },
      { brand: unknown.brand.id },
    );
    expect(noConnection.answer.status).toBe(404);
  });

  it('refuses a member whose account at the provider is gone, even with a provider session', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, nextClient());
    const email = `leaver@${domain}`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    idp.addUser({ email, password: 'pw' });
    const browser = new IdpBrowser();
    const first = await signInWithSso(cs, { email, password: 'pw' }, { idpBrowser: browser });
    expect(first.answer.status).toBe(303);

    idp.removeUser(email);
    // The provider keeps its session cookie in this browser, and the person tries their password.
    const again = await signInWithSso(cs, { email, password: 'pw' }, { idpBrowser: browser });
    expect(again.callbackUrl).toBeUndefined();
    expect(again.answer.status).toBe(401);
    expect(again.answer.body).toContain('No such user');
    expect(again.http.cookie).toBe('');
    // Their membership is the owner's to remove, as before: it is still there.
    const { rows } = await cs.stack.db.pool.query(
      `select 1 from records.brand_members where email = $1 and removed_at is null`,
      [email],
    );
    expect(rows).toHaveLength(1);
  });

  it('refuses an address the provider has not verified', async () => {
    const { domain } = await brandWithSso(cs, idp, nextClient());
    const email = `unverified@${domain}`;
    idp.addUser({ email, password: 'pw', email_verified: false });
    const { answer, http } = await signInWithSso(cs, { email, password: 'pw' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');
  });
});

describe('requiring single sign-on', () => {
  it('needs an SSO session; then links no longer open the brand, and the connection stays', async () => {
    const { brand, domain, owner, ownerHttp } = await brandWithSso(cs, idp, nextClient());
    const memberEmail = `member@${domain}`;
    await cs.stack.admin.addMember({ brandId: brand.id, email: memberEmail, role: 'member' });
    idp.addUser({ email: owner.email, password: 'pw' });
    idp.addUser({ email: memberEmail, password: 'pw' });

    const members = await ownerHttp.get(`/brands/${brand.id}/members`);
    const fromLink = await ownerHttp.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(members.body),
      policy: 'sso',
    });
    expect(fromLink.status).toBe(422);

    const { http } = await signInWithSso(cs, { email: owner.email, password: 'pw' });
    const page = await http.get(`/brands/${brand.id}/members`);
    const tooSoon = await http.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(page.body),
      policy: 'sso',
    });
    // A provider set today waits a day (issue 59): the owners were mailed when it was set.
    expect(tooSoon.headers.get('x-console-error')).toBe('sso_provider_too_new');
    await providerSetLongAgo(cs, brand.id);
    const set = await http.post(`/brands/${brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(page.body),
      policy: 'sso',
    });
    expect(set).toMatchObject({ status: 303, location: `/brands/${brand.id}/members?done=policy` });
    expect((await http.get(`/brands/${brand.id}/members`)).body).toMatch(/value="sso" checked/);

    // The owner's link session no longer opens the brand; the 403 links to its single sign-on.
    const refused = await ownerHttp.get(`/brands/${brand.id}/keys`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-console-error')).toBe('sign_in_method_required');
    expect(refused.body).toContain(
      `<a class="button" href="/sign-in/sso?brand=${brand.id}">Sign in with single sign-on</a>`,
    );
    // the person is signed in: the refusal keeps their header (who, and Sign out) as every page
    expect(headerSignedInAs(refused.body, owner.email)).toBe(true);
    // A member asking for a link is mailed none, only the way to the brand's single sign-on.
    const asked = await new ConsoleHttp(cs.url).post('/sign-in', { email: memberEmail });
    expect(asked.status).toBe(200);
    const mail = await mailTo(memberEmail);
    expect(mail).toContain('Subject: Sign in to the Developers area with single sign-on');
    expect(mail).toContain(`${cs.url}/sign-in/sso?brand=${brand.id}`);
    expect(mail).not.toMatch(/\/sign-in\/[A-Za-z0-9_-]{43}/);
    const memberSso = await signInWithSso(cs, { email: memberEmail, password: 'pw' });
    expect((await memberSso.http.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    // While it is required, the connection can be neither disabled nor removed.
    const ssoPage = await http.get(`/brands/${brand.id}/sso`);
    const disable = await http.post(`/brands/${brand.id}/sso`, {
      _csrf: csrfOf(ssoPage.body),
      issuer: idp.issuer,
      client_id: registered[next - 1]!.client_id,
      client_secret: '',
      allowed_domains: domain,
    });
    expect(disable.status).toBe(422);
    const remove = await http.post(`/brands/${brand.id}/sso/remove`, {
      _csrf: csrfOf(ssoPage.body),
    });
    expect(remove.status).toBe(422);
    expect(remove.body).toContain('requires single sign-on');

    const { rows } = await cs.stack.db.pool.query<{ summary: string }>(
      `select summary from records.activity
       where brand_id = $1 and action = 'brand.sign_in_policy_changed'`,
      [brand.id],
    );
    expect(rows.map((r) => r.summary)).toEqual(['Members must sign in with single sign-on']);
  });
});
