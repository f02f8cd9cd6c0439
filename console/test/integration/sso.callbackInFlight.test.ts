// A hostile review of sign-in (2026-12-01): a single sign-on already at the provider when the
// brand turns it off, or loses the proof of its domain, must not finish into a session. Records
// reads the connection and the verified domains again at the callback (ssoSignIn.ts), not what
// they were at the start: a guard, passing before and after. Real records, console and
// oidc-provider.
import { randomHex, startTestIdp, type TestIdp } from '@brand/testkit';
import { ConsoleHttp } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { authorizationUrlOf, brandWithSso, IdpBrowser, idpClient, startSso } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let registered: ReturnType<typeof idpClient>[];
let next = 0;

beforeAll(async () => {
  cs = await startConsoleStack();
  registered = Array.from({ length: 4 }, (_, i) => idpClient(cs, `f${i}`));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/** A member of a brand with single sign-on, signed in at the provider: the callback, unopened. */
async function callbackInFlight() {
  const b = await brandWithSso(cs, idp, registered[next++]!);
  const user = { email: `member-${randomHex(3)}@${b.domain}`, password: `pw-${randomHex(4)}` };
  await cs.stack.admin.addMember({ brandId: b.brand.id, email: user.email, role: 'member' });
  idp.addUser(user);
  const http = new ConsoleHttp(cs.url);
  const { answer } = await startSso(cs, { email: user.email }, http);
  expect(answer.status).toBe(200);
  const { callbackUrl } = await new IdpBrowser().authorize(
    authorizationUrlOf(answer.body),
    cs.url,
    user,
  );
  return { b, http, callback: new URL(callbackUrl!).pathname + new URL(callbackUrl!).search };
}

async function refusalsAt(brandId: string): Promise<string[]> {
  const { rows } = await cs.stack.db.pool.query<{ summary: string }>(
    `select summary from records.activity
      where brand_id = $1 and action = 'member.sign_in_refused' order by created_at, id`,
    [brandId],
  );
  return rows.map((r) => r.summary);
}

describe('a single sign-on at the provider when the brand changes', () => {
  it('turned off meanwhile: the callback opens no session', async () => {
    const { b, http, callback } = await callbackInFlight();
    await cs.stack.db.pool.query(
      `update records.sso_connections set enabled = false where brand_id = $1`,
      [b.brand.id],
    );
    const answer = await http.get(callback);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('set-cookie') ?? '').not.toContain('__Host-console_session=');
    expect((await http.get(`/brands/${b.brand.id}`)).status).toBe(303);
    expect((await refusalsAt(b.brand.id)).join('\n')).toContain('single sign-on is off');
  });

  it('its domain no longer proven meanwhile: the callback opens no session', async () => {
    const { b, http, callback } = await callbackInFlight();
    await cs.stack.db.pool.query(
      `update records.sso_domains set state = 'failed', verified_at = null, problem = 'gone'
        where brand_id = $1`,
      [b.brand.id],
    );
    const answer = await http.get(callback);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('set-cookie') ?? '').not.toContain('__Host-console_session=');
    expect((await refusalsAt(b.brand.id)).join('\n')).toContain('not at a domain');
  });
});
