// A brand that copies another brand's identity provider: brand A's owner connects A's single
// sign-on to the issuer and client id brand B uses (both are public: the client id is in every
// authorization URL B's members follow), with a secret of A's own guessing, and proves A's own
// domain. Records then holds two enabled connections for one issuer and client, so:
// - A's sign-in through it is refused at the token endpoint, also right after B's members signed
//   in (records keeps discovered providers keyed by the secret too, so A never borrows B's);
// - B's members still sign in to B, and a back-channel logout the provider sends for B's client
//   ends their B session, whichever connection records verifies it for first (the token is used
//   once per issuer), and writes nothing into A's activity;
// - a logout token cannot be spent through A's copy ahead of B (a replay is still refused).
// End to end: records, the console, a real OpenID provider (oidc-provider) and a real DNS server.
import { randomHex, type TestIdp } from '@brand/testkit';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleHttp } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { brandWithSso, idpClient, signInWithSso, startTestIdp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
/** B's client; the provider sends its logout tokens to the capture server (then to the console). */
let victim: ReturnType<typeof idpClient> & { backchannel_logout_uri: string };
const captured: string[] = [];
let capture: Server;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
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
  const port = (capture.address() as AddressInfo).port;
  victim = { ...idpClient(cs, 'victim'), backchannel_logout_uri: `http://127.0.0.1:${port}/` };
  idp = await startTestIdp({ clients: [victim] });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  capture?.close();
  await cs?.close();
});

const opens = async (http: ConsoleHttp, brandId: string) =>
  (await http.get(`/brands/${brandId}/keys`)).status === 200;

/** The logout token (as the provider posts it) handed to the console's back-channel endpoint. */
async function presentLogout(token: string): Promise<number> {
  const res = await fetch(`${cs.url}/sign-in/sso/backchannel-logout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }).toString(),
  });
  await res.text();
  return res.status;
}

async function activityOf(brandId: string): Promise<{ action: string; summary: string }[]> {
  const { rows } = await cs.stack.db.pool.query<{ action: string; summary: string }>(
    `select action, summary from records.activity where brand_id = $1 order by created_at, id`,
    [brandId],
  );
  return rows;
}

it('gives a brand that copies another brand’s issuer and client id nothing of that brand', async () => {
  // A copies B's client first, so its connection is the first records finds for B's tokens.
  const a = await brandWithSso(cs, idp, {
    client_id: victim.client_id,
    client_secret: `guessed-${randomHex(16)}`,
  });
  const b = await brandWithSso(cs, idp, victim);

  // B's member signs in to B: records has now discovered B's client with B's secret.
  const person = `person-${randomHex(3)}@${b.domain}`;
  await cs.stack.admin.addMember({ brandId: b.brand.id, email: person, role: 'member' });
  idp.addUser({ email: person, password: `pw-${person}` });
  const inB = await signInWithSso(cs, { email: person, password: `pw-${person}` });
  expect(inB.answer.status).toBe(303);
  expect(await opens(inB.http, b.brand.id)).toBe(true);

  // A's owner, with an account at the provider, signs in through A's copy: the provider refuses
  // A's guessed secret at the token endpoint, so no session opens anywhere.
  const ownerA = a.owner.email;
  idp.addUser({ email: ownerA, password: `pw-${ownerA}` });
  const inA = await signInWithSso(
    cs,
    { email: ownerA, password: `pw-${ownerA}` },
    { brand: a.brand.id },
  );
  expect(inA.callbackUrl).toBeDefined();
  expect(inA.answer.status).not.toBe(303);
  expect(await opens(inA.http, a.brand.id)).toBe(false);
  expect(await opens(inA.http, b.brand.id)).toBe(false);

  // The provider signs the person out: the token it sends for B's client ends the B session,
  // though A's connection matches it too, and A's activity hears nothing of B's member.
  const before = await activityOf(a.brand.id);
  const sent = await idp.backchannelLogout({ email: person });
  expect(sent.sent).toContain(victim.client_id);
  expect(captured).toHaveLength(1);
  expect(await presentLogout(captured[0]!)).toBe(200);
  expect(await opens(inB.http, b.brand.id)).toBe(false);
  const ended = (await activityOf(b.brand.id)).filter((r) => r.action === 'member.session_ended');
  expect(ended.map((r) => r.summary)).toEqual([
    `The identity provider signed ${person} out (back-channel logout); the single sign-on session ended`,
  ]);
  const afterA = await activityOf(a.brand.id);
  expect(afterA.slice(before.length).filter((r) => r.summary.includes(person))).toEqual([]);
  expect(afterA.some((r) => r.action === 'member.session_ended')).toBe(false);

  // The same token again, through either connection: refused, and it ends nothing.
  const again = await signInWithSso(cs, { email: person, password: `pw-${person}` });
  expect(again.answer.status).toBe(303);
  expect(await presentLogout(captured[0]!)).toBe(400);
  expect(await opens(again.http, b.brand.id)).toBe(true);
}, 120_000);
