// Every RPC of the records process requires the caller's credential. Each RPC is called without a
// credential, with a wrong one and with the right one; admin RPCs also refuse the internal
// (gateway) token. Only grpc.health.v1 stays open, for probes.
import { hashApiKey } from '@brand/shared/keys';
import {
  checkGrpcHealth,
  createAdminClient,
  createConsoleClient,
  startStack,
  AUTH_FAILURES,
  callOutcome,
  runCallerAuthTests,
  withCallerToken,
  type CallerAuthRpc,
  TEST_INTERNAL_TOKEN,
  type AdminClient,
  type ConsoleClient,
  type Stack,
  makePendingSubmissions,
} from '@brand/testkit';

let stack: Stack;
let brandId: string;
let ownerEmail: string;
let keyId: string;
let keyHash: string;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  const { brand, owner } = await stack.admin.createBrand({ tier: 'plus' });
  const { key, secret } = await stack.admin.createKey({
    brandId: brand.id,
    actorEmail: owner.email,
  });
  brandId = brand.id;
  ownerEmail = owner.email;
  keyId = key.id;
  keyHash = hashApiKey(secret);
});
afterAll(() => stack?.close());

/** Every RPC of the process, with its level and a call that would succeed when allowed. */
const RPCS: Array<CallerAuthRpc<AdminClient>> = [
  [
    'RecordsService/ListRecordsPage',
    'internal',
    (c) => c.listRecordsPage({ brand_id: brandId, resource: 'campaigns' }),
  ],
  ['AccessService/AuthenticateKey', 'internal', (c) => c.authenticateKey(keyHash, 'live')],
  ['RecordsService/SeedDemoData', 'admin', (c) => c.seedDemoData('br_doesNotExist')],
  [
    'RecordsService/ApproveSubmission',
    'admin',
    (c) => c.records('approveSubmission', { submission_id: 'sub_doesNotExist' }),
  ],
  [
    'RecordsService/RejectSubmission',
    'admin',
    (c) => c.records('rejectSubmission', { submission_id: 'sub_doesNotExist', reason: 'x' }),
  ],
  ['RecordsService/PayPayout', 'admin', (c) => c.records('payPayout', { payout_id: 'po_none' })],
  [
    'RecordsService/SettleCampaign',
    'admin',
    (c) => c.records('settleCampaign', { campaign_id: 'cmp_doesNotExist' }),
  ],
  [
    'RecordsService/ListSubmissions',
    'admin',
    (c) =>
      c.records('listSubmissions', { brand_id: brandId, status: 'pending', limit: 1, cursor: '' }),
  ],
  ['AccessService/CreateBrand', 'admin', (c) => c.createBrand()],
  ['AccessService/ListBrands', 'admin', (c) => c.listBrands()],
  ['AccessService/UpdateBrand', 'admin', (c) => c.updateBrand({ brandId, verified: true })],
  [
    'AccessService/AddMember',
    'admin',
    (c) => c.addMember({ brandId, email: 'dev@x.test', role: 'member' }),
  ],
  ['AccessService/CreateKey', 'admin', (c) => c.createKey({ brandId, actorEmail: ownerEmail })],
  ['AccessService/ListKeys', 'admin', (c) => c.listKeys(brandId)],
  ['AccessService/RevokeKey', 'admin', (c) => c.revokeKey('key_doesNotExist')],
  ['AccessService/ListMembers', 'admin', (c) => c.access('listMembers', { brand_id: brandId })],
  [
    'AccessService/InviteMember',
    'admin',
    (c) => c.access('inviteMember', { brand_id: brandId, email: 'inv@x.test', role: 3 }),
  ],
  [
    'AccessService/ChangeMemberRole',
    'admin',
    (c) => c.access('changeMemberRole', { member_id: 'mem_doesNotExist', role: 3 }),
  ],
  [
    'AccessService/RemoveMember',
    'admin',
    (c) => c.access('removeMember', { member_id: 'mem_doesNotExist' }),
  ],
  [
    'AccessService/ListActivity',
    'admin',
    (c) =>
      c.access('listActivity', {
        brand_id: brandId,
        page_size: 0,
        page_token: '',
        actor: '',
        action: '',
        subject_id: '',
        since: '',
        until: '',
      }),
  ],
  [
    'UsageService/RecordUsage',
    'internal',
    (c) =>
      c.usage('recordUsage', { environment: 1, counts: [], requests: [], batch_id: 'callerAuth1' }),
  ],
  [
    'UsageService/GetUsage',
    'admin',
    (c) => c.usage('getUsage', { brand_id: brandId, key_id: '', window: '24h' }),
  ],
  [
    'UsageService/ListRequestLog',
    'admin',
    (c) =>
      c.usage('listRequestLog', {
        brand_id: brandId,
        key_id: '',
        error_code: '',
        page_size: 0,
        page_token: '',
        since: '',
        until: '',
      }),
  ],
];

/** The console's own RPCs: only the console token. */
const SESSION_RPCS: Array<CallerAuthRpc<ConsoleClient>> = [
  [
    'ConsoleSessionService/RequestSignInLink',
    'console',
    (c) => c.sessions('requestSignInLink', { email: 'a@x.test', client_key: 'k' }),
  ],
  [
    'ConsoleSessionService/ClaimSignInMails',
    'console',
    (c) => c.sessions('claimSignInMails', { max_mails: 1 }),
  ],
  [
    'ConsoleSessionService/CompleteSignInMails',
    'console',
    (c) => c.sessions('completeSignInMails', { claim_ids: [] }),
  ],
  [
    'ConsoleSessionService/DescribeSignInLink',
    'console',
    (c) => c.sessions('describeSignInLink', { token: 'x' }),
  ],
  [
    'ConsoleSessionService/RedeemSignInLink',
    'console',
    (c) => c.sessions('redeemSignInLink', { token: 'x', client: undefined }),
  ],
  [
    'ConsoleSessionService/ResolveConsoleSession',
    'console',
    (c) => c.sessions('resolveConsoleSession', { session_token: 'x', brand_id: '' }),
  ],
  [
    'ConsoleSessionService/SignOut',
    'console',
    (c) => c.sessions('signOut', { session_token: 'x' }),
  ],
  [
    'ConsoleSessionService/SignOutEverywhere',
    'console',
    (c) => c.sessions('signOutEverywhere', { session_token: 'x' }),
  ],
  [
    'ConsoleSessionService/ListConsoleSessions',
    'console',
    (c) => c.sessions('listConsoleSessions', { session_token: 'x' }),
  ],
  [
    'ConsoleSessionService/EndConsoleSession',
    'console',
    (c) => c.sessions('endConsoleSession', { session_token: 'x', session_id: 'ses_x' }),
  ],
  [
    'ConsoleSessionService/EndOtherConsoleSessions',
    'console',
    (c) => c.sessions('endOtherConsoleSessions', { session_token: 'x' }),
  ],
  [
    'ConsolePasskeyService/BeginPasskeySignIn',
    'console',
    (c) => c.passkeys('beginPasskeySignIn', { origin: 'http://localhost:8090', client_key: 'k' }),
  ],
  [
    'ConsolePasskeyService/FinishPasskeySignIn',
    'console',
    (c) =>
      c.passkeys('finishPasskeySignIn', {
        origin: 'http://localhost:8090',
        response_json: '{}',
        client: undefined,
      }),
  ],
  [
    'ConsolePasskeyService/ListPasskeys',
    'console',
    (c) => c.passkeys('listPasskeys', { session_token: 'x' }),
  ],
  [
    'ConsolePasskeyService/SetBrandSignInPolicy',
    'console',
    (c) =>
      c.passkeys('setBrandSignInPolicy', { session_token: 'x', brand_id: brandId, policy: 'any' }),
  ],
  [
    'ConsoleSsoService/GetSsoConnection',
    'admin',
    (c) => c.sso('getSsoConnection', { brand_id: brandId, session_token: '' }),
  ],
  [
    'ConsoleSsoService/VerifySsoDomain',
    'admin',
    (c) => c.sso('verifySsoDomain', { brand_id: brandId, domain: 'example.com' }),
  ],
  [
    'ConsoleSsoService/SetSsoConnection',
    'admin',
    (c) =>
      c.sso('setSsoConnection', {
        brand_id: brandId,
        issuer: 'http://127.0.0.1:9',
        client_id: 'x',
        client_secret: 'y',
        allowed_domains: ['example.com'],
        enabled: true,
        session_token: '',
        if_updated_at: '',
      }),
  ],
  [
    'ConsoleSsoService/RemoveSsoConnection',
    'admin',
    (c) => c.sso('removeSsoConnection', { brand_id: brandId, session_token: '' }),
  ],
  [
    'ConsoleSsoService/BeginSsoSignIn',
    'console',
    (c) =>
      c.sso('beginSsoSignIn', {
        email: 'a@example.com',
        brand_id: '',
        origin: 'http://localhost:8090',
        browser_binding: 'x',
        client_key: 'k',
      }),
  ],
  [
    'ConsoleSsoService/FinishSsoSignIn',
    'console',
    (c) =>
      c.sso('finishSsoSignIn', {
        origin: 'http://localhost:8090',
        callback_url: 'http://localhost:8090/sign-in/sso/callback?state=x&code=y',
        browser_binding: 'x',
        client: undefined,
      }),
  ],
  [
    'ConsoleSessionService/ListOwnerEmails',
    'console',
    (c) => c.sessions('listOwnerEmails', { brand_id: brandId }),
  ],
];

const connect = (token: string): AdminClient => createAdminClient(stack.records.address, token);

runCallerAuthTests('', connect, RPCS);
runCallerAuthTests('', (token) => createConsoleClient(stack.records.address, token), SESSION_RPCS);

describe('refused calls', () => {
  it('change nothing', async () => {
    const before = await stack.admin.listKeys(brandId);
    await withCallerToken(connect, '', (c) => callOutcome(c.revokeKey(keyId)));
    await withCallerToken(connect, TEST_INTERNAL_TOKEN, (c) => callOutcome(c.revokeKey(keyId)));
    expect(await stack.admin.listKeys(brandId)).toEqual(before);
    expect(before.find((k) => k.id === keyId)?.revoked_at).toBeUndefined();
  });
});

describe('refused business changes', () => {
  it('change nothing and emit no event', async () => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    for (const token of ['', TEST_INTERNAL_TOKEN]) {
      const code = await withCallerToken(connect, token, (c) =>
        callOutcome(c.records('approveSubmission', { submission_id: sub!.id })),
      );
      expect(AUTH_FAILURES).toContain(code);
    }
    const { rows } = await stack.db.pool.query<{ status: string; events: number }>(
      `select status, (select count(*)::int from records.outbox) as events
       from submissions where id = $1`,
      [sub!.id],
    );
    expect(rows[0]).toEqual({ status: 'pending', events: 0 });
  });
});

describe('grpc.health.v1', () => {
  it('answers without a credential, so probes work', async () => {
    await expect(checkGrpcHealth(stack.records.address)).resolves.toBe('SERVING');
  });
});
