// PreparePlan over gRPC: exactly once per (brand, request_id), conflicts, the pending limit
// under concurrency, and the service's own validation (it trusts no caller's checks).
import { CampaignType, PlanStatus } from '@brand/proto/plans/v1';
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

const LIMIT = 5;
let db: TestDatabase;
let plans: PlansProcess;
let gateway: PlansClient;
let admin: PlansClient;
let brandSeq = 0;
const newBrand = (): string => `br_prepare${Date.now()}x${++brandSeq}`;

beforeAll(async () => {
  db = await createTestDatabase();
  plans = await startPlans({ databaseUrl: db.url, env: { PENDING_PLAN_LIMIT: String(LIMIT) } });
  gateway = createPlansClient(plans.address, TEST_INTERNAL_TOKEN);
  admin = createPlansClient(plans.address);
});
afterAll(async () => {
  gateway?.close();
  admin?.close();
  await plans?.stop();
  await db?.close();
});

const prepare = (brandId: string, body: Record<string, unknown>) =>
  gateway.plans('preparePlan', { brand_id: brandId, input: planInputMessage(body) });
const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? 'error',
  );
const planCount = async (brandId: string): Promise<number> =>
  (await db.pool.query('select 1 from plans.plans where brand_id = $1', [brandId])).rowCount ?? 0;

describe('PreparePlan', () => {
  it('creates a pending plan with the review path of its type and no notes', async () => {
    const brand = newBrand();
    const body = planBody({ campaign_type: 'blitz' });
    const res = await prepare(brand, body);
    expect(res.replayed).toBe(false);
    expect(res.plan).toMatchObject({
      brand_id: brand,
      request_id: body.request_id,
      status: PlanStatus.PLAN_STATUS_PENDING,
      campaign_type: CampaignType.CAMPAIGN_TYPE_BLITZ,
      planning_budget_amount: 2_500_050,
      review_path: `/workspaces/clipping/plans/${res.plan!.id}/review`,
    });
    expect(res.plan!.id).toMatch(/^pln_[A-Za-z0-9]{20}$/);
    expect(res.plan!.notes).toBeUndefined();
    const { rows } = await db.pool.query<{ notes: string }>(
      'select notes from plans.plans where id = $1',
      [res.plan!.id],
    );
    expect(rows[0]?.notes).toBe(body.notes);
  });

  it('replays identical input with the same plan and replayed: true', async () => {
    const brand = newBrand();
    const body = planBody();
    const first = await prepare(brand, body);
    const again = await prepare(brand, { ...body, planning_budget: 25000.5 });
    expect(again.replayed).toBe(true);
    expect(again.plan).toEqual(first.plan);
    expect(await planCount(brand)).toBe(1);
  });

  it('refuses changed input under a used request_id with request_conflict', async () => {
    const brand = newBrand();
    const body = planBody();
    await prepare(brand, body);
    expect(await codeOf(prepare(brand, { ...body, title: 'Another title' }))).toBe(
      'request_conflict',
    );
  });

  it('refuses a retry of a cancelled plan with request_conflict', async () => {
    const brand = newBrand();
    const body = planBody();
    const { plan } = await prepare(brand, body);
    await admin.plans('cancelPlan', { plan_id: plan!.id });
    expect(await codeOf(prepare(brand, body))).toBe('request_conflict');
  });

  it('gives another brand using the same request_id its own plan', async () => {
    const body = planBody();
    const a = await prepare(newBrand(), body);
    const b = await prepare(newBrand(), body);
    expect(b.replayed).toBe(false);
    expect(b.plan!.id).not.toBe(a.plan!.id);
  });

  it('makes one plan from 20 concurrent identical requests', async () => {
    const brand = newBrand();
    const body = planBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => prepare(brand, body)));
    expect(new Set(answers.map((a) => a.plan!.id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await planCount(brand)).toBe(1);
  });

  it('lets one of several concurrent different inputs win; the rest conflict', async () => {
    const brand = newBrand();
    const body = planBody();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => codeOf(prepare(brand, { ...body, title: `T${i}` }))),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'request_conflict')).toHaveLength(7);
    expect(await planCount(brand)).toBe(1);
  });

  it(`holds the limit of ${LIMIT} pending plans under concurrency, and replays at the limit`, async () => {
    const brand = newBrand();
    const bodies = Array.from({ length: LIMIT + 4 }, () => planBody());
    const outcomes = await Promise.all(bodies.map((b) => codeOf(prepare(brand, b))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(LIMIT);
    expect(outcomes.filter((o) => o === 'pending_plan_limit')).toHaveLength(4);
    const admitted = bodies.filter((_, i) => outcomes[i] === 'ok');
    const replay = await prepare(brand, admitted[0]!);
    expect(replay.replayed).toBe(true);

    const refused = bodies[outcomes.indexOf('pending_plan_limit')]!;
    await expect(prepare(brand, refused)).rejects.toMatchObject({
      code: 'pending_plan_limit',
      message: expect.stringMatching(/cancel/) as unknown,
    });
    await admin.plans('completePlan', { plan_id: replay.plan!.id });
    expect((await prepare(brand, refused)).replayed).toBe(false);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown campaign type', { campaign_type: CampaignType.CAMPAIGN_TYPE_UNSPECIFIED }],
    ['a zero budget', { planning_budget_amount: 0 }],
    ['a negative budget', { planning_budget_amount: -100 }],
    ['an impossible date', { planned_for: '2026-02-30' }],
    ['a request_id that is not a UUID', { request_id: 'retry-1' }],
    ['an unknown platform', { platforms: ['myspace'] }],
  ])('validates the input itself: %s is validation_failed', async (_name, change) => {
    const input = { ...planInputMessage(planBody()), ...change };
    expect(await codeOf(gateway.plans('preparePlan', { brand_id: newBrand(), input }))).toBe(
      'validation_failed',
    );
  });

  it('refuses a brand id that is not one', async () => {
    const input = planInputMessage(planBody());
    expect(await codeOf(gateway.plans('preparePlan', { brand_id: '', input }))).toBe(
      'validation_failed',
    );
  });
});
