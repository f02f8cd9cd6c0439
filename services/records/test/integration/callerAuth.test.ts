// Issue 7, defect 1: every RPC of the records process requires the caller's credential.
// Each RPC is called without a credential, with a wrong one and with the right one; admin
// RPCs also refuse the internal (gateway) token. Only grpc.health.v1 stays open, for probes.
import { hashApiKey } from '@brand/shared/keys';
import {
  checkGrpcHealth,
  createAdminClient,
  startStack,
  TEST_ADMIN_TOKEN,
  TEST_INTERNAL_TOKEN,
  type AdminClient,
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

type Level = 'internal' | 'admin';

/** Every RPC of the process, with its level and a call that would succeed when allowed. */
const RPCS: Array<[string, Level, (c: AdminClient) => Promise<unknown>]> = [
  [
    'RecordsService/ListRecords',
    'internal',
    (c) => c.listRecords({ brand_id: brandId, resource: 'campaigns' }),
  ],
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
];

async function withClient<T>(token: string, fn: (c: AdminClient) => Promise<T>): Promise<T> {
  const client = createAdminClient(stack.records.address, token);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** The error code a call ended with, or 'ok'. Codes other than auth ones mean "authorised". */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? 'error',
  );
const AUTH_FAILURES = ['unauthenticated', 'insufficient_permission'];

describe.each(RPCS)('%s (%s)', (_rpc, level, call) => {
  it('refuses a caller without a credential', async () => {
    expect(await withClient('', (c) => outcome(call(c)))).toBe('unauthenticated');
  });

  it('refuses a wrong credential', async () => {
    const wrong = `${TEST_INTERNAL_TOKEN.slice(0, -1)}x`;
    expect(await withClient(wrong, (c) => outcome(call(c)))).toBe('unauthenticated');
  });

  it(`answers the ${level} credential`, async () => {
    const token = level === 'admin' ? TEST_ADMIN_TOKEN : TEST_INTERNAL_TOKEN;
    expect(AUTH_FAILURES).not.toContain(await withClient(token, (c) => outcome(call(c))));
  });

  if (level === 'admin') {
    it('refuses the internal (gateway) credential', async () => {
      expect(await withClient(TEST_INTERNAL_TOKEN, (c) => outcome(call(c)))).toBe(
        'insufficient_permission',
      );
    });
  } else {
    it('also answers the admin credential (operators may read what they administer)', async () => {
      expect(AUTH_FAILURES).not.toContain(
        await withClient(TEST_ADMIN_TOKEN, (c) => outcome(call(c))),
      );
    });
  }
});

describe('refused calls', () => {
  it('change nothing', async () => {
    const before = await stack.admin.listKeys(brandId);
    await withClient('', (c) => outcome(c.revokeKey(keyId)));
    await withClient(TEST_INTERNAL_TOKEN, (c) => outcome(c.revokeKey(keyId)));
    expect(await stack.admin.listKeys(brandId)).toEqual(before);
    expect(before.find((k) => k.id === keyId)?.revoked_at).toBeUndefined();
  });
});

describe('refused business changes', () => {
  it('change nothing and emit no event', async () => {
    const [sub] = await makePendingSubmissions(stack.db.pool, brandId, 1);
    for (const token of ['', TEST_INTERNAL_TOKEN]) {
      const code = await withClient(token, (c) =>
        outcome(c.records('approveSubmission', { submission_id: sub!.id })),
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
