// An owner-only change waiting behind its actor's demotion or removal (a review of races inside one
// brand, 2026-12-01). Single sign-on (connect, change, remove, end one of its sessions), the
// sign-in policy and withdrawing an invitation read the actor's standing before any lock on the
// brand, so an owner demoted or removed by another owner while their change waited behind that
// change still re-pointed the brand's identity provider, removed it, required passkeys, ended a
// colleague's session or withdrew an invitation, on the authority they no longer had (as key and
// member changes did before b1f9c5ab). Each test queues the two calls behind a lock on the
// brand's row, in that order; the second must wait there, and then be refused.
import { createHash, randomBytes } from 'node:crypto';
import { Role } from '@brand/proto/access/v1';
import { ConsoleSsoServiceClient } from '@brand/proto/access/v1/sso';
import { connectClient, createCaller } from '@brand/shared/grpc';
import {
  brandWithOwners,
  createConsoleClient,
  randomHex,
  startHostileIssuer,
  startStack,
  TEST_CONSOLE_TOKEN,
  twoChangesAtOnce,
  type ActingMember,
  type ConsoleClient,
  type HostileIssuer,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let console_: ConsoleClient;
let ssoClient: ConsoleSsoServiceClient;
let issuer: HostileIssuer;

beforeAll(async () => {
  // the issuer below is on this machine: the local-only setting admits it
  stack = await startStack({
    gateways: 0,
    recordsEnv: { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true' },
  });
  console_ = createConsoleClient(stack.records.address);
  ssoClient = connectClient(ConsoleSsoServiceClient, stack.records.address);
  issuer = await startHostileIssuer();
  issuer.serve({ document: issuer.benignDocument() });
}, 120_000);
afterAll(async () => {
  ssoClient?.close();
  console_?.close();
  await issuer?.close();
  await stack?.close();
});

/** ConsoleSsoService as the console calls it for `m`. */
const ssoAs = (m: ActingMember) =>
  createCaller(ssoClient, { deadlineMs: 10_000, token: TEST_CONSOLE_TOKEN, metadata: m.metadata });

const connect = (m: ActingMember, brandId: string, enabled: boolean) =>
  ssoAs(m)('setSsoConnection', {
    brand_id: brandId,
    issuer: issuer.origin,
    client_id: 'console',
    client_secret: 's3',
    allowed_domains: [`${brandId.slice(3).toLowerCase()}.example.com`],
    enabled,
    session_token: m.sessionToken,
    if_updated_at: '',
  });

const connectionOf = async (brandId: string) =>
  (
    await stack.db.pool.query<{ enabled: boolean }>(
      'select enabled from sso_connections where brand_id = $1',
      [brandId],
    )
  ).rows;

/** A live session of `email` opened by `method` (for 'sso', by `ssoBrandId`'s provider). */
async function session(
  email: string,
  method: 'passkey' | 'sso',
  ssoBrandId: string | null = null,
): Promise<{ id: string; token: string }> {
  const id = `ses_${randomHex(8)}`;
  const token = randomBytes(32).toString('base64url');
  await stack.db.pool.query(
    `insert into console_sessions
       (id, token_hash, email, csrf_secret, expires_at, sign_in_method, user_agent,
        client_address, sso_brand_id)
     values ($1, $2, $3, 'csrf', now() + interval '1 hour', $4, 'test', '127.0.0.1', $5)`,
    [id, createHash('sha256').update(token).digest(), email, method, ssoBrandId],
  );
  return { id, token };
}

describe('single sign-on', () => {
  it("a demoted owner's new connection waiting behind the demotion is refused", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const [demotion, connected] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
      () => connect(t.as.b, t.brand.id, false),
    );
    expect(demotion).toEqual({ ok: true });
    expect(connected).toEqual({ ok: false, code: 'insufficient_permission' });
    expect(await connectionOf(t.brand.id)).toEqual([]);
  });

  it("a removed owner's removal of the connection waiting behind theirs is refused", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    await connect(t.as.a, t.brand.id, false);
    const [removal, removed] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
      () =>
        ssoAs(t.as.b)('removeSsoConnection', {
          brand_id: t.brand.id,
          session_token: t.as.b.sessionToken,
        }),
    );
    expect(removal).toEqual({ ok: true });
    expect(removed).toEqual({ ok: false, code: 'not_found' });
    expect(await connectionOf(t.brand.id)).toEqual([{ enabled: false }]);
  });

  it("a demoted owner's end of another's session waiting behind the demotion is refused", async () => {
    const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
    const colleague = await session(t.owner.a.email, 'sso', t.brand.id);
    const [demotion, ended] = await twoChangesAtOnce(
      stack.db.pool,
      t.brand.id,
      () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_ADMIN }),
      () =>
        ssoAs(t.as.b)('endBrandSsoSession', {
          brand_id: t.brand.id,
          session_id: colleague.id,
          session_token: t.as.b.sessionToken,
        }),
    );
    expect(demotion).toEqual({ ok: true });
    expect(ended).toEqual({ ok: false, code: 'insufficient_permission' });
    const live = await stack.db.pool.query(
      'select id from console_sessions where id = $1 and ended_at is null',
      [colleague.id],
    );
    expect(live.rows).toHaveLength(1);
  });
});

it("a demoted owner's sign-in policy waiting behind the demotion is refused", async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a']);
  const b = await session(t.owner.b.email, 'passkey');
  const [demotion, required] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('changeMemberRole', { member_id: t.owner.b.id, role: Role.ROLE_MEMBER }),
    () =>
      console_.passkeys('setBrandSignInPolicy', {
        session_token: b.token,
        brand_id: t.brand.id,
        policy: 'passkey_or_sso',
      }),
  );
  expect(demotion).toEqual({ ok: true });
  expect(required).toEqual({ ok: false, code: 'insufficient_permission' });
  const policy = await stack.db.pool.query<{ sign_in_policy: string }>(
    'select sign_in_policy from brands where id = $1',
    [t.brand.id],
  );
  expect(policy.rows[0]!.sign_in_policy).toBe('any');
});

it("a removed owner's withdrawal of an invitation waiting behind the removal is refused", async () => {
  const t = await brandWithOwners(stack.admin, console_, ['a', 'b'], ['a', 'b']);
  const { invitation } = await t.as.a.access('inviteMember', {
    brand_id: t.brand.id,
    email: `new-${randomHex(4)}@brand.test`,
    role: Role.ROLE_MEMBER,
  });
  const [removal, withdrawn] = await twoChangesAtOnce(
    stack.db.pool,
    t.brand.id,
    () => t.as.a.access('removeMember', { member_id: t.owner.b.id }),
    () => t.as.b.invitations('withdrawInvitation', { invitation_id: invitation!.id }),
  );
  expect(removal).toEqual({ ok: true });
  expect(withdrawn).toEqual({ ok: false, code: 'not_found' });
  const open = await stack.db.pool.query(
    'select id from member_invitations where id = $1 and outcome is null',
    [invitation!.id],
  );
  expect(open.rows).toHaveLength(1);
});
