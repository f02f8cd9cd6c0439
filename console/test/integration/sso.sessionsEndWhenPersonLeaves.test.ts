// Single sign-on sessions end when the person leaves, end to end with real processes:
// records, webhooks, plans, the console and a real OpenID provider (oidc-provider, with
// back-channel logout and refresh tokens). The provider's logout_token ends the person's SSO
// sessions of the brand (a forged one is refused); records re-checks SSO sessions with the
// provider at SSO_RECHECK_INTERVAL_MS, so a person deleted there loses the console within
// seconds here; an owner sees and ends any member's SSO sessions of the brand, never another
// brand's, and a non-owner cannot.
import { freeRedisPrefixKeys, randomHex } from '@brand/testkit';
import type { TestIdp } from '@brand/testkit';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConsoleHttp, csrfOf } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { brandWithSso, idpClient, signInWithSso, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let registered: (ReturnType<typeof idpClient> & { backchannel_logout_uri: string })[];
let next = 0;
const nextClient = () => registered[next++]!;
/**
 * Where the provider sends the logout tokens of one more client (the last registered): the test
 * keeps each, as someone who copied one off the wire would, and passes it to the console itself.
 */
let captured: string[] = [];
let capture: Server;

beforeAll(async () => {
  cs = await startConsoleStack({ recordsEnv: { SSO_RECHECK_INTERVAL_MS: '1000' } });
  capture = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (token) captured.push(token);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
  const capturePort = (capture.address() as AddressInfo).port;
  registered = Array.from({ length: 8 }, (_, i) => ({
    ...idpClient(cs, `e${i}`),
    backchannel_logout_uri: `${cs.url}/sign-in/sso/backchannel-logout`,
  }));
  registered.push({
    ...idpClient(cs, 'captured'),
    backchannel_logout_uri: `http://127.0.0.1:${capturePort}/logout`,
  });
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  capture?.close();
  await cs?.close();
});

/** A person at the provider, signed in to the console through the brand's SSO. */
async function ssoMember(
  brand: { id: string },
  domain: string,
  role: 'owner' | 'admin' | 'member',
  email = `${role}-${randomHex(3)}@${domain}`,
): Promise<{ email: string; http: ConsoleHttp }> {
  if (role !== 'owner' || !email.startsWith('owner@')) {
    await cs.stack.admin.addMember({ brandId: brand.id, email, role });
  }
  idp.addUser({ email, password: `pw-${email}` });
  const { http, answer } = await signInWithSso(cs, { email, password: `pw-${email}` });
  expect(answer.status).toBe(303);
  expect((await http.get(`/brands/${brand.id}/keys`)).status).toBe(200);
  return { email, http };
}

const signedOut = async (http: ConsoleHttp, brandId: string) => {
  const res = await http.get(`/brands/${brandId}/keys`);
  return res.status !== 200;
};

async function endedRows(brandId: string): Promise<{ actor_email: string; summary: string }[]> {
  const { rows } = await cs.stack.db.pool.query<{ actor_email: string; summary: string }>(
    `select actor_email, summary from records.activity
     where brand_id = $1 and action = 'member.session_ended' order by created_at, id`,
    [brandId],
  );
  return rows;
}

/** A logout token of the right shape, signed by a key the provider never published. */
function forgedLogoutToken(claims: Record<string, unknown>): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'logout+jwt' })}.${part(claims)}`;
  return `${signed}.${sign('RSA-SHA256', Buffer.from(signed), privateKey).toString('base64url')}`;
}

describe('back-channel logout', () => {
  it('ends the person’s SSO sessions of the brand when the provider says so', async () => {
    const client = nextClient();
    const { brand, domain } = await brandWithSso(cs, idp, client);
    const stays = await ssoMember(brand, domain, 'member');
    const leaves = await ssoMember(brand, domain, 'member');
    const second = await signInWithSso(cs, { email: leaves.email, password: `pw-${leaves.email}` });
    expect(second.answer.status).toBe(303);

    const sent = await idp.backchannelLogout({ email: leaves.email });
    // the brand's client took it; clients no brand uses here were answered 400
    expect(sent.sent).toContain(client.client_id);
    expect(await signedOut(leaves.http, brand.id)).toBe(true);
    expect(await signedOut(second.http, brand.id)).toBe(true);
    expect(await signedOut(stays.http, brand.id)).toBe(false);
    const rows = await endedRows(brand.id);
    expect(rows.filter((r) => r.summary.includes(leaves.email))).toHaveLength(2);
    expect(rows.every((r) => r.actor_email === 'identity provider')).toBe(true);
  });

  it('uses a token once, and never ends a session opened after it was issued (issue 59)', async () => {
    const client = registered.at(-1)!;
    const { brand, domain } = await brandWithSso(cs, idp, client);
    const person = await ssoMember(brand, domain, 'member');
    captured = [];
    await idp.backchannelLogout({ email: person.email });
    const [token] = captured;
    expect(token).toBeDefined();
    const post = (logoutToken: string) =>
      fetch(`${cs.url}/sign-in/sso/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: logoutToken }).toString(),
      });
    expect((await post(token!)).status).toBe(200);
    expect(await signedOut(person.http, brand.id)).toBe(true);

    // The person signs in again, a second after the token was issued; the token comes back.
    await new Promise((r) => setTimeout(r, 1_100));
    const again = await signInWithSso(cs, { email: person.email, password: `pw-${person.email}` });
    expect(again.answer.status).toBe(303);
    const replayed = await post(token!);
    expect(replayed.status).toBe(400);
    expect(await signedOut(again.http, brand.id)).toBe(false);

    // Even with its use forgotten (Redis emptied), the token is older than the new session.
    const forgotten = await freeRedisPrefixKeys(
      `${cs.stack.redisKeyPrefix}sso:logout-jti:`,
      cs.stack.redisUrl,
    );
    expect(forgotten).toBeGreaterThanOrEqual(1);
    expect((await post(token!)).status).toBe(200);
    expect(await signedOut(again.http, brand.id)).toBe(false);
    expect(
      (await endedRows(brand.id)).filter((r) => r.summary.includes(person.email)),
    ).toHaveLength(1);
  });

  it('refuses a token the provider did not sign, or no token, with 400 and ends nothing', async () => {
    const client = nextClient();
    const { brand, domain } = await brandWithSso(cs, idp, client);
    const person = await ssoMember(brand, domain, 'member');
    const forged = forgedLogoutToken({
      iss: idp.issuer,
      aud: client.client_id,
      sub: person.email,
      iat: Math.floor(Date.now() / 1000),
      jti: randomHex(8),
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    const bodies: Record<string, string>[] = [
      { logout_token: forged },
      { logout_token: 'not.a.jwt' },
      {},
    ];
    for (const body of bodies) {
      const res = await fetch(`${cs.url}/sign-in/sso/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
      expect([JSON.stringify(body).slice(0, 40), res.status]).toEqual([
        JSON.stringify(body).slice(0, 40),
        400,
      ]);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
    expect(await signedOut(person.http, brand.id)).toBe(false);
    expect(await endedRows(brand.id)).toEqual([]);
  });
});

describe('the re-check with the provider', () => {
  it('signs out, within seconds, a person deleted at the provider; keeps the others', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, nextClient());
    const stays = await ssoMember(brand, domain, 'member');
    const deleted = await ssoMember(brand, domain, 'member');
    idp.removeUser(deleted.email);
    const deadline = Date.now() + 20_000;
    while (!(await signedOut(deleted.http, brand.id)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await signedOut(deleted.http, brand.id)).toBe(true);
    expect(await signedOut(stays.http, brand.id)).toBe(false);
    const rows = await endedRows(brand.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.summary).toContain(`no longer signs ${deleted.email} in (invalid_grant)`);
    expect(idp.requests('/token')).toBeGreaterThan(2); // refreshes, not only the sign-ins
  }, 60_000);
});

describe('members’ sessions', () => {
  it('an owner sees and ends any member’s SSO session of the brand; never another brand’s; a non-owner cannot', async () => {
    const { brand, domain } = await brandWithSso(cs, idp, nextClient());
    const owner = await ssoMember(brand, domain, 'owner', `owner@${domain}`);
    const member = await ssoMember(brand, domain, 'member');
    const admin = await ssoMember(brand, domain, 'admin');
    const other = await brandWithSso(cs, idp, nextClient());
    const outsider = await ssoMember(other.brand, other.domain, 'member');
    const { rows: outsiderSessions } = await cs.stack.db.pool.query<{ id: string }>(
      `select id from records.console_sessions where email = $1 and ended_at is null`,
      [outsider.email],
    );

    const page = await owner.http.get(`/brands/${brand.id}/members/sessions`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(member.email);
    expect(page.body).toContain(admin.email);
    expect(page.body).toContain('(you, this session)');
    expect(page.body).not.toContain(outsider.email);
    const memberSession = new RegExp(
      `<tr id="session-(ses_\\w+)"><td[^>]*>${member.email.replaceAll('.', '\\.')}`,
    ).exec(page.body)?.[1];
    expect(memberSession).toBeDefined();

    // another brand's session: not found, and it lives on
    const csrf = csrfOf(page.body);
    const foreign = await owner.http.post(
      `/brands/${brand.id}/members/sessions/${outsiderSessions[0]!.id}/end`,
      { _csrf: csrf },
    );
    expect(foreign.status).toBe(404);
    expect(await signedOut(outsider.http, other.brand.id)).toBe(false);

    // a non-owner: refused, and the member's session lives on
    const adminPage = await admin.http.get(`/brands/${brand.id}/members/sessions`);
    expect(adminPage.status).toBe(403);
    const tried = await admin.http.post(
      `/brands/${brand.id}/members/sessions/${memberSession!}/end`,
      { _csrf: csrfOf((await admin.http.get(`/brands/${brand.id}/keys`)).body) },
    );
    expect(tried.status).toBe(403);
    expect(await signedOut(member.http, brand.id)).toBe(false);

    const ended = await owner.http.post(
      `/brands/${brand.id}/members/sessions/${memberSession!}/end`,
      { _csrf: csrf },
    );
    expect(ended).toMatchObject({
      status: 303,
      location: `/brands/${brand.id}/members/sessions?done=ended`,
    });
    expect(await signedOut(member.http, brand.id)).toBe(true);
    expect(await signedOut(owner.http, brand.id)).toBe(false);
    expect(await endedRows(brand.id)).toEqual([
      {
        actor_email: owner.email,
        summary: `${owner.email} ended a single sign-on session of ${member.email}`,
      },
    ]);
  }, 60_000);
});
