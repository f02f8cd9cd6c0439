// Every RPC of records that takes a console session token holds a session opened by a brand's
// single sign-on to that brand (issue 42 part 1): it proves no more than that the brand's own
// provider vouched for the address there. So it never acts on the address (passkeys: refused with
// PERMISSION_DENIED address_proof_required), sees and ends only the sessions that brand's SSO
// opened (another is not_found), and resolves no other brand. Real records and PostgreSQL. The
// SSO session is written as FinishSsoSignIn writes it (the sign-in itself, against a real
// provider, is console/test/integration/sso.sessionSpeaksForItsBrand.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import {
  createConsoleClient,
  randomHex,
  startStack,
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

/** A session of `email` opened by `brandId`'s single sign-on, as records stores one. */
async function ssoSession(email: string, brandId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await stack.db.pool.query(
    `insert into records.console_sessions
       (id, token_hash, email, csrf_secret, expires_at, sign_in_method, user_agent,
        client_address, sso_brand_id, acted_brand_ids)
     values ($1, $2, $3, 'csrf', now() + interval '1 hour', 'sso', 'test', '127.0.0.1', $4,
             array[$4])`,
    [`ses_${randomHex(8)}`, createHash('sha256').update(token).digest(), email, brandId],
  );
  return token;
}

/** Brand A (the victim's), brand B inviting A's owner; their link session and B's SSO session. */
async function victimAndSso() {
  const a = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@victim.test`,
  });
  const b = await stack.admin.createBrand({ tier: 'plus', verified: true });
  await stack.admin.addMember({ brandId: b.brand.id, email: a.owner.email, role: 'owner' });
  const linked = await console_.signIn(a.owner.email);
  const sso = await ssoSession(a.owner.email, b.brand.id);
  return { a, b, linked: linked.sessionToken, sso };
}

/** PERMISSION_DENIED address_proof_required, read back as its code (fromServiceError). */
const refusedForAddress = { code: 'address_proof_required' };

describe('a session opened by a brand’s single sign-on', () => {
  it('never acts on the address’s passkeys', async () => {
    const { sso } = await victimAndSso();
    const origin = 'http://localhost:8090';
    await expect(console_.passkeys('listPasskeys', { session_token: sso })).rejects.toMatchObject(
      refusedForAddress,
    );
    await expect(
      console_.passkeys('beginPasskeyRegistration', { session_token: sso, origin }),
    ).rejects.toMatchObject(refusedForAddress);
    await expect(
      console_.passkeys('finishPasskeyRegistration', {
        session_token: sso,
        origin,
        name: 'attacker key',
        response_json: '{}',
      }),
    ).rejects.toMatchObject(refusedForAddress);
    await expect(
      console_.passkeys('removePasskey', { session_token: sso, passkey_id: 'pk_anything' }),
    ).rejects.toMatchObject(refusedForAddress);
  });

  it('sees and ends only the sessions its brand’s single sign-on opened', async () => {
    const { a, b, linked, sso } = await victimAndSso();
    const second = await ssoSession(a.owner.email, b.brand.id);
    const listed = await console_.sessions('listConsoleSessions', { session_token: sso });
    expect(listed.sessions.map((s) => s.sign_in_method)).toEqual(['sso', 'sso']);
    const [linkSession] = (
      await console_.sessions('listConsoleSessions', { session_token: linked })
    ).sessions.filter((s) => s.sign_in_method === 'link');

    await expect(
      console_.sessions('endConsoleSession', { session_token: sso, session_id: linkSession!.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(
      (await console_.sessions('endOtherConsoleSessions', { session_token: sso })).sessions_ended,
    ).toBe(1);
    await expect(
      console_.sessions('listConsoleSessions', { session_token: second }),
    ).rejects.toMatchObject({ code: 'invalid_session' });
    expect(
      (await console_.sessions('signOutEverywhere', { session_token: sso })).sessions_ended,
    ).toBe(1);
    // The address's link session, and its link-proven powers, live on.
    const still = await console_.sessions('resolveConsoleSession', {
      session_token: linked,
      brand_id: a.brand.id,
    });
    expect(still.brand?.id).toBe(a.brand.id);
    expect(still.sign_in_method).toBe('link');
    expect(still.sso_brand_id).toBe('');
  });

  it('resolves, and changes the sign-in of, its own brand only', async () => {
    const { a, b, sso } = await victimAndSso();
    const resolved = await console_.sessions('resolveConsoleSession', {
      session_token: sso,
      brand_id: '',
    });
    expect(resolved.brands.map((m) => m.brand?.id)).toEqual([b.brand.id]);
    expect(resolved).toMatchObject({ sign_in_method: 'sso', sso_brand_id: b.brand.id });
    await expect(
      console_.sessions('resolveConsoleSession', { session_token: sso, brand_id: a.brand.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      console_.passkeys('setBrandSignInPolicy', {
        session_token: sso,
        brand_id: a.brand.id,
        policy: 'any',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    // Its sign-out is told to its brand's activity alone.
    await console_.sessions('signOut', { session_token: sso });
    const { rows } = await stack.db.pool.query<{ brand_id: string }>(
      `select brand_id from records.activity where action = 'member.signed_out' and actor_email = $1`,
      [a.owner.email],
    );
    expect(rows.map((r) => r.brand_id)).toEqual([b.brand.id]);
  });

  it('cannot be stored without the brand it is confined to', async () => {
    const { a } = await victimAndSso();
    await expect(
      stack.db.pool.query(
        `insert into records.console_sessions
           (id, token_hash, email, csrf_secret, expires_at, sign_in_method)
         values ($1, $2, $3, 'csrf', now() + interval '1 hour', 'sso')`,
        [`ses_${randomHex(8)}`, randomBytes(32), a.owner.email],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });
});
