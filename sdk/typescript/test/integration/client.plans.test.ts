// campaignPlans.prepare against the running gateway and plans service: a minted request_id, the
// replay flag, conflicts, the pending limit, the permission, field errors, and the reason the
// request_id exists: a response lost after the plan was created is retried by the client with the
// same id and answered as a replay, so one plan exists.
import { randomUUID } from 'node:crypto';
import {
  BrandRecords,
  InsufficientPermissionError,
  PendingPlanLimitError,
  RequestConflictError,
  ValidationFailedError,
  type CampaignPlanInput,
} from '@brand-records/client';
import {
  createPlansClient,
  makeBrandWithKey,
  startStack,
  type PlansClient,
  type Stack,
} from '@brand/testkit';

const LIMIT = 4;
let stack: Stack;
let admin: PlansClient;

beforeAll(async () => {
  stack = await startStack({ plans: true, plansEnv: { PENDING_PLAN_LIMIT: String(LIMIT) } });
  admin = createPlansClient(stack.plans!.address);
});
afterAll(async () => {
  admin?.close();
  await stack?.close();
});

const input = (over: Partial<CampaignPlanInput> = {}): CampaignPlanInput => ({
  title: 'Back-to-school launch',
  goal: 'Reach first-year students in Metro Manila',
  campaign_type: 'package',
  planned_for: '2027-06-01',
  review_on: '2027-05-15',
  planning_budget: 25000.5,
  platforms: ['tiktok', 'instagram'],
  notes: 'private',
  ...over,
});

const clientFor = (apiKey: string, fetchImpl?: typeof fetch) =>
  new BrandRecords({
    apiKey,
    baseUrl: stack.gateway.url,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });

async function planCount(brandId: string): Promise<number> {
  const res = await stack.db.pool.query<{ n: string }>(
    'select count(*) as n from plans.plans where brand_id = $1',
    [brandId],
  );
  return Number(res.rows[0]!.n);
}

interface PlanBrand {
  brandId: string;
  /** A live key with campaigns:prepare. */
  prepareKey: string;
  /** A live key without it. */
  readKey: string;
}

/** A fresh Enterprise brand (its own pending limit) with a prepare key and a read-only key. */
async function makePlanBrand(): Promise<PlanBrand> {
  const seeded = await makeBrandWithKey(stack.admin, {
    tier: 'enterprise',
    permissions: ['campaigns:prepare'],
  });
  const read = await stack.admin.createKey({
    brandId: seeded.brand.id,
    actorEmail: seeded.owner.email,
    name: 'Reporting',
  });
  return { brandId: seeded.brand.id, prepareKey: seeded.secret, readKey: read.secret };
}

describe('campaignPlans.prepare', () => {
  let brand: PlanBrand;
  beforeEach(async () => {
    brand = await makePlanBrand();
  });

  it('prepares a plan with a minted request_id; the same id again is a replay of the same plan', async () => {
    const client = clientFor(brand.prepareKey);
    const plan = await client.campaignPlans.prepare(input());
    expect(plan.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(plan).toMatchObject({ status: 'pending', replayed: false, campaign_type: 'package' });
    expect(plan.review_path).toBe(`/workspaces/influencers/plans/${plan.id}/review`);
    expect(plan.meta.status).toBe(201);
    expect(plan).not.toHaveProperty('notes');

    const again = await client.campaignPlans.prepare(input({ planning_budget: '25000.50' }), {
      requestId: plan.request_id,
    });
    expect(again).toMatchObject({ id: plan.id, replayed: true });
    expect(again.meta.status).toBe(200);
  });

  it('a response lost after the plan was made is retried with the same id: one plan, replayed', async () => {
    const before = await planCount(brand.brandId);
    let posts = 0;
    const sent: string[] = [];
    // The first POST reaches the API and creates the plan; its answer is then "lost".
    const client = clientFor(brand.prepareKey, async (url, init) => {
      const res = await fetch(url, init);
      if (init?.method === 'POST') {
        sent.push((JSON.parse(init.body as string) as { request_id: string }).request_id);
        if (++posts === 1) {
          await res.text();
          throw new TypeError('fetch failed: connection reset');
        }
      }
      return res;
    });
    const plan = await client.campaignPlans.prepare(input());
    expect(posts).toBe(2);
    expect(sent[0]).toBe(sent[1]);
    expect(plan.replayed).toBe(true);
    expect(await planCount(brand.brandId)).toBe(before + 1);
  });

  it('changed input under a used request_id is RequestConflictError (409), and so is a cancelled plan', async () => {
    const client = clientFor(brand.prepareKey);
    const requestId = randomUUID();
    const plan = await client.campaignPlans.prepare(input(), { requestId });
    const changed = await client.campaignPlans
      .prepare(input({ title: 'Another title' }), { requestId })
      .catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(RequestConflictError);
    expect(changed).toMatchObject({
      code: 'request_conflict',
      status: 409,
      planRequestId: requestId,
    });

    await admin.plans('cancelPlan', { plan_id: plan.id });
    await expect(client.campaignPlans.prepare(input(), { requestId })).rejects.toBeInstanceOf(
      RequestConflictError,
    );
  });

  it('the plan after the pending limit is PendingPlanLimitError (422); replays still answer', async () => {
    const client = clientFor(brand.prepareKey);
    const plans = [];
    for (let i = 0; i < LIMIT; i++) plans.push(await client.campaignPlans.prepare(input()));
    const refused = await client.campaignPlans.prepare(input()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PendingPlanLimitError);
    expect(refused).toMatchObject({ status: 422, code: 'pending_plan_limit' });
    const replay = await client.campaignPlans.prepare(input(), { requestId: plans[0]!.request_id });
    expect(replay).toMatchObject({ id: plans[0]!.id, replayed: true });
  });

  it('a key without campaigns:prepare gets InsufficientPermissionError (403)', async () => {
    const error = await clientFor(brand.readKey)
      .campaignPlans.prepare(input())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientPermissionError);
    expect(error).toMatchObject({ status: 403 });
  });

  it('invalid input is ValidationFailedError with one detail per field, never retried', async () => {
    let posts = 0;
    const client = clientFor(brand.prepareKey, (url, init) => {
      posts++;
      return fetch(url, init);
    });
    const error = await client.campaignPlans
      .prepare(input({ planned_for: '2026-02-30', planning_budget: -5 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    const fields = (error as ValidationFailedError).details!.map((d) => d.field).sort();
    expect(fields).toEqual(['planned_for', 'planning_budget']);
    expect(posts).toBe(1);
  });
});
