// Every RPC of the plans process requires the caller's credential (issue 8, issue 7 defect 1).
// Each RPC is called without a credential, with a wrong one and with the right one; admin
// RPCs also refuse the internal (gateway) token. Only grpc.health.v1 stays open, for probes.
import type { PlansClient } from '@brand/testkit';
import {
  checkGrpcHealth,
  createPlansClient,
  createTestDatabase,
  planBody,
  planInputMessage,
  startPlans,
  TEST_ADMIN_TOKEN,
  TEST_INTERNAL_TOKEN,
  type PlansProcess,
  type TestDatabase,
} from '@brand/testkit';

let db: TestDatabase;
let plans: PlansProcess;
let planId: string;
const brandId = 'br_callerAuthBrand';

beforeAll(async () => {
  db = await createTestDatabase();
  plans = await startPlans({ databaseUrl: db.url });
  const c = createPlansClient(plans.address, TEST_INTERNAL_TOKEN);
  try {
    const res = await c.plans('preparePlan', {
      brand_id: brandId,
      input: planInputMessage(planBody()),
    });
    planId = res.plan!.id;
  } finally {
    c.close();
  }
});
afterAll(async () => {
  await plans?.stop();
  await db?.close();
});

type Level = 'internal' | 'admin';

/** Every RPC of the process, with its level and a call that would succeed when allowed. */
const RPCS: Array<[string, Level, (c: PlansClient) => Promise<unknown>]> = [
  [
    'PreparePlan',
    'internal',
    (c) => c.plans('preparePlan', { brand_id: brandId, input: planInputMessage(planBody()) }),
  ],
  ['GetPlan', 'admin', (c) => c.plans('getPlan', { plan_id: planId })],
  ['ListPlans', 'admin', (c) => c.plans('listPlans', { brand_id: brandId, status: 0 })],
  ['CancelPlan', 'admin', (c) => c.plans('cancelPlan', { plan_id: 'pln_doesNotExist' })],
  ['CompletePlan', 'admin', (c) => c.plans('completePlan', { plan_id: 'pln_doesNotExist' })],
];

async function withClient<T>(token: string, fn: (c: PlansClient) => Promise<T>): Promise<T> {
  const client = createPlansClient(plans.address, token);
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

describe.each(RPCS)('PlansService/%s (%s)', (_rpc, level, call) => {
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
  }
});

describe('refused calls', () => {
  it('change nothing: a cancel with the gateway token leaves the plan pending', async () => {
    await withClient(TEST_INTERNAL_TOKEN, (c) =>
      outcome(c.plans('cancelPlan', { plan_id: planId })),
    );
    await withClient('', (c) => outcome(c.plans('cancelPlan', { plan_id: planId })));
    const { rows } = await db.pool.query<{ status: string }>(
      'select status from plans.plans where id = $1',
      [planId],
    );
    expect(rows[0]?.status).toBe('pending');
  });
});

describe('metrics', () => {
  it('counts every call by method and outcome on the internal listener', async () => {
    const text = await (await fetch(`${plans.opsUrl}/metrics`)).text();
    expect(text).toMatch(/^grpc_server_handled_total\{method="PreparePlan",code="ok"\} [1-9]/m);
    expect(text).toMatch(
      /^grpc_server_handled_total\{method="GetPlan",code="unauthenticated"\} [1-9]/m,
    );
  });
});

describe('grpc.health.v1', () => {
  it('answers without a credential, so probes work', async () => {
    await expect(checkGrpcHealth(plans.address)).resolves.toBe('SERVING');
  });
});
