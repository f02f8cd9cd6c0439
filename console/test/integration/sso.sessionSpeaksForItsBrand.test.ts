// A brand's single sign-on speaks for that brand only (issue 42 part 1). The owner of brand B
// invites the owner of brand A, points B's SSO at a provider the attacker runs that vouches for
// the victim's domain, and signs in through it "as" the victim. That session acts in B alone:
// it cannot see or end the victim's sessions elsewhere, add or remove a passkey of the address,
// sign the address out everywhere, or open any page of A. Every path the probe took is tried
// through the console's HTTP surface against real records, a real OpenID provider
// (oidc-provider, startTestIdp), a real DNS server (startTestDns) and the console process.
import { randomHex, type TestIdp } from '@brand/testkit';
import { csrfOf, type ConsoleHttp } from '../browserlessClient';
import { signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { addPasskey, signInWithPasskey } from '../passkeyActors';
import { SoftAuthenticator } from '../softAuthenticator';
import { idpClient, signInWithSso, startTestIdp, verifyDomainHttp } from '../ssoActors';

let cs: ConsoleStack;
let idp: TestIdp;
let registered: ReturnType<typeof idpClient>[];
let next = 0;
const nextClient = () => registered[next++]!;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
  registered = Array.from({ length: 4 }, (_, i) => idpClient(cs, `scope${i}`));
  idp = await startTestIdp({ clients: registered });
}, 120_000);
afterAll(async () => {
  await idp?.close();
  await cs?.close();
});

/** The code of a JSON refusal ({ code, message }), or the body's start when it is not one. */
const codeOfJson = (body: string): unknown => {
  try {
    return (JSON.parse(body) as { code?: unknown }).code;
  } catch {
    return body.slice(0, 40);
  }
};

const sessionIdsOf = (page: string): string[] =>
  [...page.matchAll(/action="\/sessions\/(ses_[A-Za-z0-9]+)\/end"/g)].map((m) => m[1]!);

const passkeysOf = async (email: string) =>
  (
    await cs.stack.db.pool.query<{ id: string; name: string }>(
      `select id, name from records.console_passkeys where email = $1 order by created_at, id`,
      [email],
    )
  ).rows;

/**
 * The victim: owner of brand A at a domain of their own, with a passkey, A requiring a passkey
 * (or SSO), and two live sessions (the emailed link's and the passkey's).
 */
async function victimBrand() {
  const domain = `victim-${randomHex(4)}.test`;
  const a = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@${domain}`,
  });
  const linked = await signInHttp(cs, a.owner.email);
  const added = await addPasskey(cs, linked, 'Victim laptop');
  expect(added.status).toBe(303);
  const { http: withPasskey } = await signInWithPasskey(cs, added.authenticator);
  const members = await withPasskey.get(`/brands/${a.brand.id}/members`);
  const required = await withPasskey.post(`/brands/${a.brand.id}/members/sign-in-policy`, {
    _csrf: csrfOf(members.body),
    policy: 'passkey_or_sso',
  });
  expect(required.status).toBe(303);
  return { ...a, domain, linked, withPasskey };
}

/**
 * The attacker: owner of brand B, who invites the victim's address to B (and the victim, who
 * works with B too, accepts: issue 59 made that their choice), then connects B's single sign-on
 * to a provider they run, for the victim's domain (proven in the test's DNS: whoever runs that
 * domain's mail and DNS, an employer for instance, can). Answers the attacker's session through
 * B's SSO "as" the victim.
 */
async function attackThroughB(victim: ConsoleHttp, victimEmail: string, victimDomain: string) {
  const b = await cs.stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner@attacker-${randomHex(4)}.test`,
  });
  const attacker = await signInHttp(cs, b.owner.email);
  const membersPage = await attacker.get(`/brands/${b.brand.id}/members`);
  const invited = await attacker.post(`/brands/${b.brand.id}/members`, {
    _csrf: csrfOf(membersPage.body),
    email: victimEmail,
    role: 'owner',
  });
  expect(invited.status).toBe(303);
  const invitations = await victim.get('/invitations');
  const accept = new RegExp(
    `action="(/invitations/inv_[A-Za-z0-9]+/accept)"[^>]*data-brand="${b.brand.id}"`,
  ).exec(invitations.body)?.[1];
  expect(accept).toBeDefined();
  expect((await victim.post(accept!, { _csrf: csrfOf(invitations.body) })).status).toBe(303);
  const client = nextClient();
  const ssoPage = await attacker.get(`/brands/${b.brand.id}/sso`);
  const saved = await attacker.post(`/brands/${b.brand.id}/sso`, {
    _csrf: csrfOf(ssoPage.body),
    issuer: idp.issuer,
    client_id: client.client_id,
    client_secret: client.client_secret,
    allowed_domains: victimDomain,
    enabled: 'on',
  });
  expect(saved.status).toBe(303);
  const verified = await verifyDomainHttp(cs, attacker, b.brand.id, victimDomain);
  expect(verified.location).toBe(`/brands/${b.brand.id}/sso?done=verified#domain-${victimDomain}`);

  // The attacker's provider vouches for the victim's address with a password of their choosing.
  const password = `pw-${randomHex(6)}`;
  idp.addUser({ email: victimEmail, password });
  const { http: asVictim, answer } = await signInWithSso(cs, { email: victimEmail, password });
  expect(answer).toMatchObject({ status: 303, location: `/brands/${b.brand.id}` });
  return { b, asVictim };
}

describe('a session opened by brand B’s single sign-on, as the owner of brand A', () => {
  it('acts in B alone: it cannot reach A, the address’s sessions or its passkeys', async () => {
    const a = await victimBrand();
    const victimSessions = sessionIdsOf((await a.withPasskey.get('/sessions')).body);
    expect(victimSessions).toHaveLength(2);
    const [victimPasskey] = await passkeysOf(a.owner.email);
    expect(victimPasskey?.name).toBe('Victim laptop');

    const { b, asVictim } = await attackThroughB(a.linked, a.owner.email, a.domain);
    expect((await asVictim.get(`/brands/${b.brand.id}/keys`)).status).toBe(200);

    // Brand A stays closed to it, every page and form.
    for (const page of ['keys', 'members', 'sso', 'activity', 'receivers']) {
      const res = await asVictim.get(`/brands/${a.brand.id}/${page}`);
      expect({ page, status: res.status }).toEqual({ page, status: 404 });
    }
    const csrf = csrfOf((await asVictim.get(`/brands/${b.brand.id}/keys`)).body);
    const policy = await asVictim.post(`/brands/${a.brand.id}/members/sign-in-policy`, {
      _csrf: csrf,
      policy: 'any',
    });
    expect(policy.status).toBe(404);
    expect((await asVictim.get('/brands')).body).not.toContain(a.brand.id);

    // Every path the probe took, observed first and compared at the end, so a failure shows
    // each path that is open (before the fix: all of them but A's pages).
    const seen: Record<string, unknown> = {};
    // "Your sessions" lists only what B's single sign-on opened; the victim's are not there.
    const sessions = await asVictim.get('/sessions');
    seen.victimSessionsListed = victimSessions.filter((id) => sessions.body.includes(id));

    // A passkey of the address: neither its options nor a registration (before: 200 and 303).
    const options = await asVictim.post('/passkeys/options', { _csrf: csrf });
    seen.options = { status: options.status, code: codeOfJson(options.body) };
    const attackerKey = new SoftAuthenticator(cs.url);
    const response = attackerKey.register(
      options.status === 200
        ? (JSON.parse(options.body) as Parameters<SoftAuthenticator['register']>[0])
        : {
            challenge: Buffer.from(randomHex(16)).toString('base64url'),
            rp: { id: new URL(cs.url).hostname },
            user: { id: Buffer.from(randomHex(8)).toString('base64url') },
          },
    );
    const registered = await asVictim.post('/passkeys', {
      _csrf: csrf,
      name: 'attacker key',
      response,
    });
    seen.register = { status: registered.status, code: registered.headers.get('x-console-error') };

    // Nor can it remove the victim's passkey.
    const removed = await asVictim.post(`/passkeys/${victimPasskey!.id}/remove`, { _csrf: csrf });
    seen.remove = { status: removed.status, code: removed.headers.get('x-console-error') };

    // The passkey the attacker tried to add signs nobody in, and so never opens A as its owner.
    const withAttackerKey = await signInWithPasskey(cs, attackerKey);
    seen.attackerPasskeySignIn = withAttackerKey.answer.status;
    seen.attackerPasskeyOpensA = (
      await withAttackerKey.http.get(`/brands/${a.brand.id}/members`)
    ).status;
    seen.passkeysOfAddress = (await passkeysOf(a.owner.email)).map((p) => p.name);

    // Nor end the victim's sessions, one by one, all the others, or everywhere.
    seen.endOne = await Promise.all(
      victimSessions.map(
        async (id) => (await asVictim.post(`/sessions/${id}/end`, { _csrf: csrf })).status,
      ),
    );
    await asVictim.post('/sessions/others/end', { _csrf: csrf });
    seen.victimAfterEndOthers = (await a.withPasskey.get(`/brands/${a.brand.id}/keys`)).status;
    await asVictim.post('/sign-out-everywhere', { _csrf: csrf });
    seen.victimAfterEverywhere = [
      (await a.withPasskey.get(`/brands/${a.brand.id}/keys`)).status,
      (await a.linked.get('/passkeys')).status,
    ];

    // A's activity shows nothing the attacker did.
    const { rows } = await cs.stack.db.pool.query<{ summary: string }>(
      `select summary from records.activity
       where brand_id = $1 and action in
         ('member.passkey_added', 'member.passkey_removed', 'member.signed_out')
       order by created_at, id`,
      [a.brand.id],
    );
    seen.activityOfA = rows.map((r) => r.summary);

    expect(seen).toEqual({
      victimSessionsListed: [],
      options: { status: 403, code: 'address_proof_required' },
      register: { status: 403, code: 'address_proof_required' },
      remove: { status: 403, code: 'address_proof_required' },
      attackerPasskeySignIn: 401,
      attackerPasskeyOpensA: 303,
      passkeysOfAddress: ['Victim laptop'],
      endOne: victimSessions.map(() => 404),
      victimAfterEndOthers: 200,
      victimAfterEverywhere: [200, 200],
      activityOfA: [`${a.owner.email} added the passkey “Victim laptop”`],
    });
  });

  it('sees and ends only the sessions B’s single sign-on opened for the address', async () => {
    const a = await victimBrand();
    const { b, asVictim } = await attackThroughB(a.linked, a.owner.email, a.domain);
    // A second session through B's SSO: the one thing this session may see and end.
    const password = `pw-${randomHex(6)}`;
    idp.addUser({ email: a.owner.email, password });
    const { http: second } = await signInWithSso(cs, { email: a.owner.email, password });
    const listed = await asVictim.get('/sessions');
    expect(listed.status).toBe(200);
    expect(sessionIdsOf(listed.body)).toHaveLength(2);
    expect(listed.body).not.toContain('by emailed link');
    expect(listed.body).not.toContain('by passkey');

    const ended = await asVictim.post('/sessions/others/end', { _csrf: csrfOf(listed.body) });
    expect(ended).toMatchObject({ status: 303, location: '/sessions?done=others' });
    expect((await second.get(`/brands/${b.brand.id}/keys`)).status).toBe(303);
    expect((await a.withPasskey.get(`/brands/${a.brand.id}/keys`)).status).toBe(200);
    expect((await a.linked.get('/passkeys')).status).toBe(200);

    // The passkeys page says how this session signed in and what it cannot do from here.
    const passkeys = await asVictim.get('/passkeys');
    expect(passkeys.status).toBe(200);
    expect(passkeys.body).toContain('single sign-on');
    expect(passkeys.body).not.toContain('Victim laptop');
    expect(passkeys.body).not.toContain('data-passkey="register"');
  });
});
