// The console's HTTP surface. Sign-in by emailed one-time link (the same answer for strangers, the
// link opened by GET and spent by POST, once), the session cookie's flags, the CSP and other
// headers, the Origin and CSRF-token refusals, 404 for another brand's ids, and what a non-owner
// may do. Real records, webhooks, plans, gateway, SMTP sink and console.
import { randomHex } from '@brand/testkit';
import { ConsoleHttp, csrfOf, headerSignedInAs } from '../browserlessClient';
import { brandWithOwner as brandWithOwnerOf, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ recordsEnv: { SIGN_IN_LINKS_PER_ADDRESS_AND_CLIENT: '4' } });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

const brandWithOwner = () => brandWithOwnerOf(cs);
const signIn = (email: string) => signInHttp(cs, email);

describe('sign-in', () => {
  it('answers a member and a stranger alike, and mails only the member', async () => {
    const { owner } = await brandWithOwner();
    const stranger = `nobody-${randomHex(4)}@brand.test`;
    const http = new ConsoleHttp(cs.url);
    const a = await http.post('/sign-in', { email: owner.email });
    const b = await http.post('/sign-in', { email: stranger });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.replace(owner.email, 'X')).toBe(b.body.replace(stranger, 'X'));
    await cs.latestLink(owner.email);
    // The member's mail has arrived; the stranger's never comes.
    await expect(cs.latestLink(stranger, 0, 2_000)).rejects.toThrow(/not met/);
  });

  it('opens a link with GET without spending it, spends it once with POST, and sets a __Host- cookie', async () => {
    const { brand, owner } = await brandWithOwner();
    const http = new ConsoleHttp(cs.url);
    const since = Date.now() - 1_000;
    await http.post('/sign-in', { email: owner.email });
    const path = new URL(await cs.latestLink(owner.email, since)).pathname;

    // A mail scanner's GETs change nothing.
    for (let i = 0; i < 2; i++) {
      const opened = await http.get(path);
      expect(opened.status).toBe(200);
      expect(opened.body).toContain(`action="${path}"`);
      expect(opened.headers.get('set-cookie')).toBeNull();
    }
    const res = await fetch(`${cs.url}${path}`, {
      method: 'POST',
      headers: { origin: cs.url, 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/brands/${brand.id}`);
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^__Host-console_session=[A-Za-z0-9_-]{43}; /);
    const flags = cookie.split('; ').slice(1);
    expect(flags).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']));
    expect(cookie).not.toMatch(/Domain=/i);

    // Single use: the same link again is refused, and sets no cookie.
    const again = await new ConsoleHttp(cs.url).post(path, {});
    expect(again.status).toBe(400);
    expect(again.body).toContain('does not work');
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('signs out (the cookie no longer opens pages) and signs out everywhere', async () => {
    const { brand, owner } = await brandWithOwner();
    const one = await signIn(owner.email);
    const two = await signIn(owner.email);
    const keysPage = await one.get(`/brands/${brand.id}/keys`);
    expect(keysPage.status).toBe(200);

    const out = await one.post('/sign-out', { _csrf: csrfOf(keysPage.body) });
    expect(out.status).toBe(303);
    expect((await two.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    const three = await signIn(owner.email);
    const page = await three.get('/brands');
    expect((await three.post('/sign-out-everywhere', { _csrf: csrfOf(page.body) })).status).toBe(
      303,
    );
    for (const http of [two, three]) {
      http.cookie ||= 'x';
      const res = await http.get(`/brands/${brand.id}/keys`);
      expect(res.status).toBe(303);
      expect(res.location).toBe(`/sign-in?next=${encodeURIComponent(`/brands/${brand.id}/keys`)}`);
    }
  });
});

describe('signing in again in the same browser', () => {
  // A hostile review (2026-11-30): a new sign-in replaced the cookie but left the session it
  // replaced alive on the server, so an earlier copy of the cookie kept working after the person
  // signed in afresh (until its own end).
  it('ends the session the browser presented, and no other', async () => {
    const { brand, owner } = await brandWithOwner();
    const browser = await signIn(owner.email);
    const copied = new ConsoleHttp(cs.url);
    copied.cookie = browser.cookie;
    const elsewhere = await signIn(owner.email);
    expect((await copied.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    const since = Date.now() - 1_000;
    expect((await browser.post('/sign-in', { email: owner.email })).status).toBe(200);
    const link = new URL(await cs.latestLink(owner.email, since)).pathname;
    expect((await browser.post(link, {})).status).toBe(303);
    expect(browser.cookie).not.toBe(copied.cookie);

    const answers = await Promise.all(
      [browser, copied, elsewhere].map(async (http) => {
        const res = await http.get(`/brands/${brand.id}/keys`);
        return [res.status, res.location];
      }),
    );
    expect(answers).toEqual([
      [200, null],
      [303, `/sign-in?next=${encodeURIComponent(`/brands/${brand.id}/keys`)}`],
      [200, null],
    ]);
  });
});

describe('sign-in limits and standing', () => {
  it('refuses a fifth link in the window with 429 and says when to retry', async () => {
    const email = `limited-${randomHex(4)}@brand.test`;
    const http = new ConsoleHttp(cs.url);
    for (let i = 0; i < 4; i++) expect((await http.post('/sign-in', { email })).status).toBe(200);
    const refused = await http.post('/sign-in', { email });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many sign-in requests');
  });

  it('refuses a removed member, or a brand dropped below Plus, on the very next request', async () => {
    const { brand, owner } = await brandWithOwner();
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const member = await signIn(email);
    const ownerHttp = await signIn(owner.email);
    expect((await member.get(`/brands/${brand.id}/keys`)).status).toBe(200);

    const page = await ownerHttp.get(`/brands/${brand.id}/members`);
    const memberId = new RegExp(`/members/(mem_[A-Za-z0-9]+)/remove`).exec(
      page.body.slice(page.body.indexOf(email)),
    )?.[1];
    expect(memberId).toBeDefined();
    const removed = await ownerHttp.post(`/brands/${brand.id}/members/${memberId}/remove`, {
      _csrf: csrfOf(page.body),
    });
    expect(removed.status).toBe(303);
    // Issue 59: the very next request for the brand is refused (the session belongs to the
    // address and keeps its other brands, none here).
    const after = await member.get(`/brands/${brand.id}/keys`);
    expect(after.status).toBe(404);
    expect((await member.get('/brands')).body).not.toContain(brand.id);

    await cs.stack.admin.updateBrand({ brandId: brand.id, tier: 'free' });
    const dropped = await ownerHttp.get(`/brands/${brand.id}/keys`);
    expect(dropped.status).toBe(403);
    expect(dropped.body).toContain('Plus tier or above');
    // the owner is signed in: the brand's refusal keeps their header, as every page
    expect(headerSignedInAs(dropped.body, owner.email)).toBe(true);
  });
});

describe('headers', () => {
  it('sends a strict CSP and refuses framing on every page', async () => {
    const res = await fetch(`${cs.url}/sign-in`);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.text();
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(body).not.toMatch(/\sstyle=/);
  });
});

describe('operations', () => {
  it('serves metrics, liveness and readiness on the internal listener only', async () => {
    await fetch(`${cs.url}/sign-in`);
    const metrics = await (await fetch(`${cs.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /console_http_requests_total\{method="GET",route="\/sign-in",status="200"\} \d+/,
    );
    expect((await fetch(`${cs.opsUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${cs.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { records: 'ok', redis: 'ok' },
    });
    expect((await fetch(`${cs.url}/metrics`)).status).toBe(404);
  });
});

describe('CSRF', () => {
  it('refuses a state-changing request without our Origin or without the session token', async () => {
    const { brand, owner } = await brandWithOwner();
    const http = await signIn(owner.email);
    const page = await http.get(`/brands/${brand.id}/keys`);
    const form = { _csrf: csrfOf(page.body), name: 'Forged', environment: 'live' };
    const path = `/brands/${brand.id}/keys`;

    const crossSite = await http.post(path, form, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('x-console-error')).toBe('forbidden_origin');
    const noOrigin = await http.post(path, form, { origin: null });
    expect(noOrigin.status).toBe(403);
    const noToken = await http.post(path, { name: 'Forged', environment: 'live' });
    expect(noToken.status).toBe(403);
    expect(noToken.headers.get('x-console-error')).toBe('csrf_token_invalid');
    const otherToken = await http.post(path, { ...form, _csrf: 'A'.repeat(43) });
    expect(otherToken.status).toBe(403);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(0);

    const ok = await http.post(path, form);
    expect(ok.status).toBe(303);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(1);
  });
});

describe('keys', () => {
  it('shows a new key once: the result page cannot be reloaded to show it again', async () => {
    const { brand, owner } = await brandWithOwner();
    const http = await signIn(owner.email);
    const page = await http.get(`/brands/${brand.id}/keys`);
    const created = await http.post(`/brands/${brand.id}/keys`, {
      _csrf: csrfOf(page.body),
      name: 'Warehouse sync',
      environment: 'live',
      campaigns_prepare: 'on',
    });
    expect(created.status).toBe(303);
    const shown = await http.get(created.location!);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const secret = /(bk_live_[A-Za-z0-9]+)/.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    const again = await http.get(created.location!);
    expect(again.status).toBe(410);
    expect(again.body).not.toContain(secret);
    const [key] = await cs.stack.admin.listKeys(brand.id);
    expect(key).toMatchObject({ name: 'Warehouse sync', permissions: ['campaigns:prepare'] });
    expect(key!.created_by).toBe(owner.email);
  });

  it('lets a non-owner read keys but not create them: no form, and the POST is refused', async () => {
    const { brand } = await brandWithOwner();
    const email = `member-${randomHex(4)}@brand.test`;
    await cs.stack.admin.addMember({ brandId: brand.id, email, role: 'member' });
    const http = await signIn(email);
    const page = await http.get(`/brands/${brand.id}/keys`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Only brand owners create, roll and revoke keys');
    expect(page.body).not.toContain('Create key');
    const refused = await http.post(`/brands/${brand.id}/keys`, {
      _csrf: csrfOf(page.body),
      name: 'Sneaky',
      environment: 'live',
    });
    expect(refused.status).toBe(403);
    expect(await cs.stack.admin.listKeys(brand.id)).toHaveLength(0);
    expect((await http.get(`/brands/${brand.id}/members`)).status).toBe(403);
  });
});

describe('brand isolation', () => {
  it("answers 404 for another brand's pages and ids, whatever the id", async () => {
    const a = await brandWithOwner();
    const b = await brandWithOwner();
    const key = await cs.stack.admin.createKey({
      brandId: a.brand.id,
      name: 'A key',
      environment: 'live',
      actorEmail: a.owner.email,
    });
    const httpB = await signIn(b.owner.email);
    for (const path of [
      `/brands/${a.brand.id}/keys`,
      `/brands/${a.brand.id}/receivers`,
      `/brands/${b.brand.id}/keys/${key.key.id}/revoke`,
      `/brands/${b.brand.id}/receivers/rcv_00000000000000000000`,
      `/brands/br_doesnotexist/keys`,
    ]) {
      const res = await httpB.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const page = await httpB.get(`/brands/${b.brand.id}/keys`);
    const revoke = await httpB.post(`/brands/${b.brand.id}/keys/${key.key.id}/revoke`, {
      _csrf: csrfOf(page.body),
    });
    expect(revoke.status).toBe(404);
    expect((await cs.stack.admin.listKeys(a.brand.id))[0]!.revoked_at).toBeUndefined();
  });
});
