// Every RPC of the plans process requires the caller's credential. Each RPC is called without a
// credential, with a wrong one and with the right one; admin RPCs also refuse the internal
// (gateway) token. Only grpc.health.v1 stays open, for probes.
import type { PlansClient } from '@brand/testkit';
import {
  checkGrpcHealth,
  createPlansClient,
  createTestDatabase,
  planBody,
  planInputMessage,
  startPlans,
  callOutcome,
  runCallerAuthTests,
  withCallerToken,
  type CallerAuthRpc,
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

/** Every RPC of the process, with its level and a call that would succeed when allowed. */
const RPCS: Array<CallerAuthRpc<PlansClient>> = [
  [
    'PreparePlan',
    'internal',
    (c) => c.plans('preparePlan', { brand_id: brandId, input: planInputMessage(planBody()) }),
  ],
  ['GetPlan', 'admin', (c) => c.plans('getPlan', { plan_id: planId })],
  ['ListPlans', 'admin', (c) => c.plans('listPlans', { brand_id: brandId, status: 0 })],
  ['CancelPlan', 'admin', (c) => c.plans('cancelPlan', { plan_id: 'pln_doesNotExist' })],
  ['CompletePlan', 'admin', (c) => c.plans('completePlan', { plan_id: 'pln_doesNotExist' })],
  [
    'ListActivity',
    'admin',
    (c) =>
      c.plans('listActivity', {
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
];

const connect = (token: string): PlansClient => createPlansClient(plans.address, token);

runCallerAuthTests('PlansService/', connect, RPCS);

describe('refused calls', () => {
  it('change nothing: a cancel with the gateway token leaves the plan pending', async () => {
    await withCallerToken(connect, TEST_INTERNAL_TOKEN, (c) =>
      callOutcome(c.plans('cancelPlan', { plan_id: planId })),
    );
    await withCallerToken(connect, '', (c) =>
      callOutcome(c.plans('cancelPlan', { plan_id: planId })),
    );
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
