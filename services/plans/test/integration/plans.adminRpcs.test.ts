// The Developers-area RPCs: get (notes included), list with a status filter and pages,
// cancel and complete with their transition rules.
import { PlanStatus } from '@brand/proto/plans/v1';
import {
  createPlansClient,
  createTestDatabase,
  planBody,
  planInputMessage,
  startPlans,
  TEST_INTERNAL_TOKEN,
  type PlansClient,
  type PlansProcess,
  type TestDatabase,
} from '@brand/testkit';

let db: TestDatabase;
let plans: PlansProcess;
let gateway: PlansClient;
let admin: PlansClient;
const brandId = `br_admin${Date.now()}`;
const ids: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  plans = await startPlans({ databaseUrl: db.url });
  gateway = createPlansClient(plans.address, TEST_INTERNAL_TOKEN);
  admin = createPlansClient(plans.address);
  for (let i = 0; i < 5; i++) {
    const input = planInputMessage(planBody({ title: `Plan ${i}` }));
    ids.push((await gateway.plans('preparePlan', { brand_id: brandId, input })).plan!.id);
  }
});
afterAll(async () => {
  gateway?.close();
  admin?.close();
  await plans?.stop();
  await db?.close();
});

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? 'error',
  );

describe('admin RPCs', () => {
  it('GetPlan returns the plan with its notes', async () => {
    const { plan } = await admin.plans('getPlan', { plan_id: ids[0]! });
    expect(plan).toMatchObject({ id: ids[0], title: 'Plan 0', notes: planBody().notes });
  });

  it('GetPlan of an unknown id is not_found', async () => {
    expect(await codeOf(admin.plans('getPlan', { plan_id: 'pln_unknown' }))).toBe('not_found');
  });

  it('ListPlans pages newest first and filters by status', async () => {
    const first = await admin.plans('listPlans', { brand_id: brandId, status: 0, page_size: 3 });
    expect(first.plans.map((p) => p.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(first.plans[0]!.notes).toBe(planBody().notes);
    const second = await admin.plans('listPlans', {
      brand_id: brandId,
      status: 0,
      page_size: 3,
      page_token: first.next_page_token,
    });
    expect(second.plans.map((p) => p.id)).toEqual([ids[1], ids[0]]);
    expect(second.next_page_token).toBeUndefined();
    expect(
      await codeOf(
        admin.plans('listPlans', { brand_id: brandId, status: 0, page_token: 'garbage' }),
      ),
    ).toBe('invalid_cursor');
  });

  it('CancelPlan cancels a pending plan, again is a no-op, and completing it is refused', async () => {
    const { plan } = await admin.plans('cancelPlan', { plan_id: ids[1]! });
    expect(plan!.status).toBe(PlanStatus.PLAN_STATUS_CANCELLED);
    expect((await admin.plans('cancelPlan', { plan_id: ids[1]! })).plan).toEqual(plan);
    expect(await codeOf(admin.plans('completePlan', { plan_id: ids[1]! }))).toBe(
      'precondition_failed',
    );
    const pending = await admin.plans('listPlans', {
      brand_id: brandId,
      status: PlanStatus.PLAN_STATUS_PENDING,
    });
    expect(pending.plans.map((p) => p.id)).not.toContain(ids[1]);
    const cancelled = await admin.plans('listPlans', {
      brand_id: brandId,
      status: PlanStatus.PLAN_STATUS_CANCELLED,
    });
    expect(cancelled.plans.map((p) => p.id)).toEqual([ids[1]]);
  });

  it('CompletePlan completes a pending plan and cancelling it afterwards is refused', async () => {
    const { plan } = await admin.plans('completePlan', { plan_id: ids[2]! });
    expect(plan!.status).toBe(PlanStatus.PLAN_STATUS_COMPLETED);
    expect(await codeOf(admin.plans('cancelPlan', { plan_id: ids[2]! }))).toBe(
      'precondition_failed',
    );
    expect(await codeOf(admin.plans('completePlan', { plan_id: 'pln_unknown' }))).toBe('not_found');
  });
});
