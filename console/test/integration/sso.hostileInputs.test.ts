// Hostile inputs to single sign-on, beside account.hostileInputs.test.ts. Each goes through the
// console's HTTP surface to real records (openid-client checking the provider's answers) and a real
// OpenID provider (oidc-provider in a child process), and is judged by its real outcome: no
// session, a clear 4xx page, never a 5xx.
import { randomHex, startTestIdp, type TestIdp } from '@brand/testkit';
import { ConsoleHttp, csrfOf } from '../browserlessClient';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import {
  authorizationUrlOf,
  brandWithSso,
  IdpBrowser,
  idpClient,
  signInWithSso,
  startSso,
} from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
/** A second, unrelated provider: it may answer for a brand it is not connected to. */
let otherIdp: TestIdp;
let registered: ReturnType<typeof idpClient>[];
let next = 0;
const nextClient = () => registered[next++]!;

beforeAll(async () => {
  cs = await startConsoleStack();
  registered = Array.from({ length: 16 }, (_, i) => idpClient(cs, `h${i}`));
  idp = await startTestIdp({ clients: registered });
  otherIdp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await otherIdp?.close();
  await idp?.close();
  await cs?.close();
});

/** A brand with SSO and a member known to the provider; the member's login. */
async function brandAndMember() {
  const b = await brandWithSso(cs, idp, nextClient());
  const user = { email: `member-${randomHex(3)}@${b.domain}`, password: `pw-${randomHex(4)}` };
  await cs.stack.admin.addMember({ brandId: b.brand.id, email: user.email, role: 'member' });
  idp.addUser(user);
  return { ...b, user };
}

/** Starts a sign-in in `http` and logs in at the provider; the callback URL (not yet opened). */
async function callbackFor(
  http: ConsoleHttp,
  user: { email: string; password: string },
  opts: { brand?: string; provider?: IdpBrowser } = {},
): Promise<string> {
  const { answer } = await startSso(cs, { email: user.email, brand: opts.brand }, http);
  expect(answer.status).toBe(200);
  const { callbackUrl } = await (opts.provider ?? new IdpBrowser()).authorize(
    authorizationUrlOf(answer.body),
    cs.url,
    user,
  );
  expect(callbackUrl).toBeDefined();
  return callbackUrl!.slice(cs.url.length);
}

const pathOf = (u: string) => new URL(u).pathname + new URL(u).search;

describe('the callback', () => {
  it('a replayed state is refused: it was spent by the first callback, cookie or not', async () => {
    const { brand, user } = await brandAndMember();
    const http = new ConsoleHttp(cs.url);
    const callback = await callbackFor(http, user);
    const binding = http.ssoCookie;
    expect((await http.get(callback)).status).toBe(303);

    const replay = new ConsoleHttp(cs.url);
    replay.ssoCookie = binding;
    const again = await replay.get(callback);
    expect(again.status).toBe(400);
    expect(again.headers.get('x-console-error')).toBe('invalid_sso_state');
    expect(again.body).toContain('finished already');
    expect(replay.cookie).toBe('');
    expect((await replay.get(`/brands/${brand.id}/keys`)).status).toBe(303);
  });

  it('a state used from another browser is refused, and the browser that started can still finish', async () => {
    const { brand, user } = await brandAndMember();
    const victim = new ConsoleHttp(cs.url);
    const callback = await callbackFor(victim, user);

    // Another browser: no binding cookie, or its own from a sign-in it started.
    const attacker = new ConsoleHttp(cs.url);
    expect((await attacker.get(callback)).status).toBe(400);
    await startSso(cs, { email: user.email }, attacker);
    expect(attacker.ssoCookie).not.toBe('');
    const planted = await attacker.get(callback);
    expect(planted.status).toBe(400);
    expect(planted.headers.get('x-console-error')).toBe('invalid_sso_state');
    expect(attacker.cookie).toBe('');

    const own = await victim.get(callback);
    expect(own).toMatchObject({ status: 303, location: `/brands/${brand.id}` });
  });

  it('the code of an earlier sign-in replayed on a new state is refused (issued for another PKCE verifier and nonce)', async () => {
    const { user } = await brandAndMember();
    const http = new ConsoleHttp(cs.url);
    const provider = new IdpBrowser();
    const first = await callbackFor(http, user, { provider });
    // A new sign-in in the same browser: a new state, nonce and verifier.
    const second = await callbackFor(http, user, { provider });
    const firstCode = new URL(first, cs.url).searchParams.get('code')!;
    const mixed = new URL(second, cs.url);
    mixed.searchParams.set('code', firstCode);
    const res = await http.get(pathOf(mixed.href));
    expect(res.status).toBe(401);
    expect(res.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');
  });

  // A mix-up attack (a review, 2026-11-30). Every brand registers the same callback address, so
  // the owner of brand A, whose provider they control, can forward a member of brand B (sent to
  // A's sign-in) to B's provider with a request the attacker started for B in their own browser
  // and the member's state for A. B's provider sends the member back with its code; records
  // takes A's state and sends that code to A's token endpoint, where the attacker reads it; the
  // attacker presents it under their own state for B, and B's provider redeems it (B's client, the
  // attacker's verifier and nonce): the attacker was signed in as the member, at B.
  it("a code the callback has seen is not redeemed again under another state (mix-up through a hostile brand's provider)", async () => {
    const b = await brandAndMember();
    const a = await brandWithSso(cs, otherIdp, nextClient());
    // 1. The attacker starts B's sign-in in their own browser: B's request, their nonce and PKCE.
    const attacker = new ConsoleHttp(cs.url);
    const { answer: theirs } = await startSso(cs, { brand: b.brand.id }, attacker);
    expect(theirs.status).toBe(200);
    const theirRequest = new URL(authorizationUrlOf(theirs.body));
    const theirState = theirRequest.searchParams.get('state')!;
    // 2. The member is sent to A's sign-in (a link on the attacker's page)...
    const member = new ConsoleHttp(cs.url);
    const { answer: toA } = await startSso(cs, { brand: a.brand.id }, member);
    expect(toA.status).toBe(200);
    const memberState = new URL(authorizationUrlOf(toA.body)).searchParams.get('state')!;
    // 3. ...and A's authorization endpoint forwards them to B's provider: the attacker's request,
    // the member's state. The member signs in there as usual.
    theirRequest.searchParams.set('state', memberState);
    const { callbackUrl } = await new IdpBrowser().authorize(theirRequest.href, cs.url, b.user);
    expect(callbackUrl).toBeDefined();
    const code = new URL(callbackUrl!).searchParams.get('code')!;
    // 4. Back at the callback, A's sign-in is refused, and the code has gone to A's token endpoint,
    // where the attacker reads it. (This test's A advertises RFC 9207, so records refuses on the
    // `iss` B's provider added, before any token request; a hostile provider advertises no such
    // thing. The test reads the code from the URL in its stead.)
    const back = await member.get(callbackUrl!.slice(cs.url.length));
    expect(back.status).toBe(401);
    // 5. The attacker presents B's answer, code and `iss`, under their own state for B.
    const replayed = new URL(callbackUrl!);
    replayed.searchParams.set('state', theirState);
    expect(replayed.searchParams.get('code')).toBe(code);
    const stolen = await attacker.get(pathOf(replayed.href));
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get('x-console-error')).toBe('sso_refused');
    expect(attacker.cookie).toBe('');
    expect((await attacker.get(`/brands/${b.brand.id}/keys`)).status).toBe(303);
    // The member's own sign-in at B is untouched.
    expect((await signInWithSso(cs, b.user, { brand: b.brand.id })).answer).toMatchObject({
      status: 303,
      location: `/brands/${b.brand.id}`,
    });
  });

  it('an ID token whose nonce is not the one this sign-in stored is refused (the nonce alone)', async () => {
    const { brand, user } = await brandAndMember();
    const http = new ConsoleHttp(cs.url);
    const callback = await callbackFor(http, user);
    // Same state, same browser, same PKCE verifier: only the nonce the token must carry differs
    // (as when a token minted for another sign-in is injected), so only the nonce check can refuse.
    const state = new URL(callback, cs.url).searchParams.get('state')!;
    const changed = await cs.stack.db.pool.query(
      `update records.sso_sign_ins set nonce = $2 where state = $1`,
      [state, `other-${randomHex(8)}`],
    );
    expect(changed.rowCount).toBe(1);
    const res = await http.get(callback);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');
    expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(303);
  });

  it("an identity provider answering for another brand's sign-in is refused", async () => {
    const a = await brandAndMember();
    const b = await brandAndMember();
    const http = new ConsoleHttp(cs.url);
    // Brand B's provider client signs its member in; the code is put on brand A's state.
    await startSso(cs, { email: a.user.email }, http);
    const stateA = new URL(
      authorizationUrlOf((await startSso(cs, { email: a.user.email }, http)).answer.body),
    ).searchParams.get('state')!;
    const forB = await callbackFor(new ConsoleHttp(cs.url), b.user);
    const crossed = new URL(forB, cs.url);
    crossed.searchParams.set('state', stateA);
    const res = await http.get(pathOf(crossed.href));
    expect(res.status).toBe(401);
    expect(res.headers.get('x-console-error')).toBe('sso_refused');

    // Another provider altogether (the same client id registered there) answering brand A's state.
    otherIdp.addUser(a.user);
    const started = await startSso(cs, { email: a.user.email }, http);
    const authA = new URL(authorizationUrlOf(started.answer.body));
    const atOther = new URL(authA.pathname + authA.search, otherIdp.issuer);
    const { callbackUrl } = await new IdpBrowser().authorize(atOther.href, cs.url, a.user);
    expect(callbackUrl).toBeDefined();
    const foreign = await http.get(pathOf(callbackUrl!));
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');
  });

  it('an address outside the allowed domains is refused, though the provider vouches for it', async () => {
    const { brand, domain } = await brandAndMember();
    // A member of the brand whose address is at another domain, signed in at the provider.
    const outsider = { email: `ana-${randomHex(3)}@elsewhere-${domain}`, password: 'pw' };
    await cs.stack.admin.addMember({ brandId: brand.id, email: outsider.email, role: 'owner' });
    idp.addUser(outsider);
    const { answer, http } = await signInWithSso(cs, outsider, { brand: brand.id });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');
    // Nor does the domain find a brand from the sign-in page.
    expect((await startSso(cs, { email: outsider.email })).answer.status).toBe(404);
  });

  it('a person signed in at the provider who is not a member (or no longer) is refused', async () => {
    const { brand, domain, user, ownerHttp } = await brandAndMember();
    const stranger = { email: `stranger@${domain}`, password: 'pw' };
    idp.addUser(stranger);
    const { answer, http } = await signInWithSso(cs, stranger);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-console-error')).toBe('sso_refused');
    expect(http.cookie).toBe('');

    // A member the owner removes is refused from then on; the provider account is untouched.
    const page = await ownerHttp.get(`/brands/${brand.id}/members`);
    const { rows } = await cs.stack.db.pool.query<{ id: string }>(
      `select id from records.brand_members where email = $1`,
      [user.email],
    );
    const memberId = rows[0]!.id;
    const removed = await ownerHttp.post(`/brands/${brand.id}/members/${memberId}/remove`, {
      _csrf: csrfOf(page.body),
    });
    expect(removed.status).toBe(303);
    const after = await signInWithSso(cs, user);
    expect(after.answer.status).toBe(401);
    expect(after.http.cookie).toBe('');
  });

  it('garbage, errors from the provider and a wrong path never make a 5xx or a session', async () => {
    const http = new ConsoleHttp(cs.url);
    await startSso(cs, { email: `x@${randomHex(3)}.test` }, http);
    for (const query of [
      '',
      '?state=',
      '?code=abc',
      '?state=%00%ff&code=1',
      `?state=${'a'.repeat(5000)}&code=1`,
      '?error=access_denied&state=nothing',
      '?state[]=1&code[]=2',
    ]) {
      const res = await http.get(`/sign-in/sso/callback${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(http.cookie).toBe('');
    }
    // The provider's own refusal comes back on a live state: that state is spent, 401.
    const { user } = await brandAndMember();
    const started = await startSso(cs, { email: user.email }, http);
    const state = new URL(authorizationUrlOf(started.answer.body)).searchParams.get('state')!;
    const denied = await http.get(
      `/sign-in/sso/callback?error=access_denied&state=${encodeURIComponent(state)}`,
    );
    expect(denied.status).toBe(401);
    expect(denied.headers.get('x-console-error')).toBe('sso_refused');
  });
});

describe('the forms', () => {
  it('starting a sign-in from another origin, or none, is refused', async () => {
    const { user } = await brandAndMember();
    const http = new ConsoleHttp(cs.url);
    for (const origin of ['https://evil.example', null]) {
      const res = await http.post('/sign-in/sso', { email: user.email }, { origin });
      expect(res.status).toBe(403);
      expect(http.ssoCookie).toBe('');
    }
    const bad = await http.post('/sign-in/sso', { email: 'not an address', brand: "br_x'--" });
    expect(bad.status).toBe(400);
  });

  it("a brand's connection cannot be changed without the session's token, from another origin, or for another brand", async () => {
    const a = await brandAndMember();
    const b = await brandAndMember();
    const fields = {
      issuer: otherIdp.issuer,
      client_id: 'attacker',
      client_secret: 'attacker-secret',
      allowed_domains: 'evil.test',
      enabled: 'on',
    };
    const page = await a.ownerHttp.get(`/brands/${a.brand.id}/sso`);
    expect((await a.ownerHttp.post(`/brands/${a.brand.id}/sso`, fields)).status).toBe(403);
    expect(
      (
        await a.ownerHttp.post(
          `/brands/${a.brand.id}/sso`,
          { ...fields, _csrf: csrfOf(page.body) },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    const other = await a.ownerHttp.post(`/brands/${b.brand.id}/sso`, {
      ...fields,
      _csrf: csrfOf(page.body),
    });
    expect(other.status).toBe(404);
    const { rows } = await cs.stack.db.pool.query<{ issuer: string }>(
      `select issuer from records.sso_connections where brand_id = any($1)`,
      [[a.brand.id, b.brand.id]],
    );
    expect(rows.map((r) => r.issuer)).toEqual([idp.issuer, idp.issuer]);
  });

  it('a link session cannot require SSO, nor can an SSO session of another brand', async () => {
    const a = await brandAndMember();
    const b = await brandAndMember();
    await cs.stack.admin.addMember({ brandId: b.brand.id, email: a.user.email, role: 'owner' });
    const ssoA = await signInWithSso(cs, a.user);
    expect(ssoA.answer.status).toBe(303);
    const page = await ssoA.http.get(`/brands/${a.brand.id}/members`);
    const res = await ssoA.http.post(`/brands/${b.brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(page.body),
      policy: 'sso',
    });
    expect(res.status).toBe(404);
    const linkB = await signInHttp(cs, a.user.email);
    const pageB = await linkB.get(`/brands/${b.brand.id}/members`);
    const fromLink = await linkB.post(`/brands/${b.brand.id}/members/sign-in-policy`, {
      _csrf: csrfOf(pageB.body),
      policy: 'sso',
    });
    expect(fromLink.status).toBe(422);
    const { rows } = await cs.stack.db.pool.query<{ sign_in_policy: string }>(
      `select sign_in_policy from records.brands where id = $1`,
      [b.brand.id],
    );
    expect(rows[0]!.sign_in_policy).toBe('any');
  });
});
