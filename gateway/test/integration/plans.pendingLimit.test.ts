import {
  createPlansClient,
  planBody,
  startStack,
  type PlansClient,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, postPlan, type PlanOut } from '../support/plans';

// The limit of pending plans, with PENDING_PLAN_LIMIT=3 so the rule is quick to reach: the next
// pending plan is 422 pending_plan_limit saying how to free room, replays are still answered, and
// cancelling or completing a plan admits a new one. Concurrent requests never overshoot.
// plans.pendingLimit200.test.ts checks the real limit of 200.

const LIMIT = 3;
let stack: Stack;
let api: ApiClient;
let admin: PlansClient;

beforeAll(async () => {
  stack = await startStack({ plans: true, plansEnv: { PENDING_PLAN_LIMIT: String(LIMIT) } });
  api = new ApiClient(stack.gateway.url);
  admin = createPlansClient(stack.plans!.address);
});
afterAll(async () => {
  admin?.close();
  await stack?.close();
});

describe('the pending-plan limit', () => {
  it('refuses the plan after the limit with 422, then admits it once a plan is cancelled', async () => {
    const brand = await makePlanBrand(stack);
    const created: PlanOut[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await postPlan(api, brand.prepareKey, planBody());
      expect(res.status).toBe(201);
      created.push(res.body);
    }
    const next = planBody();
    const refused = await postPlan<ErrorBody>(api, brand.prepareKey, next);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('pending_plan_limit');
    expect(refused.body.error.message).toMatch(/cancel/);
    expect(refused.body.error.message).toMatch(/brandctl plan cancel/);

    await admin.plans('cancelPlan', { plan_id: created[0]!.id });
    const admitted = await postPlan(api, brand.prepareKey, next);
    expect(admitted.status).toBe(201);
  });

  it('admits a new plan once one is completed', async () => {
    const brand = await makePlanBrand(stack);
    const ids: string[] = [];
    for (let i = 0; i < LIMIT; i++)
      ids.push((await postPlan(api, brand.prepareKey, planBody())).body.id);
    expect((await postPlan(api, brand.prepareKey, planBody())).status).toBe(422);
    await admin.plans('completePlan', { plan_id: ids[1]! });
    expect((await postPlan(api, brand.prepareKey, planBody())).status).toBe(201);
  });

  it('still answers replays at the limit, and they do not count', async () => {
    const brand = await makePlanBrand(stack);
    const bodies = Array.from({ length: LIMIT }, () => planBody());
    const first: PlanOut[] = [];
    for (const b of bodies) first.push((await postPlan(api, brand.prepareKey, b)).body);
    for (const [i, b] of bodies.entries()) {
      const replay = await postPlan(api, brand.prepareKey, b);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first[i]);
    }
    expect((await postPlan(api, brand.prepareKey, planBody())).status).toBe(422);
  });

  it('never overshoots under concurrency', async () => {
    const brand = await makePlanBrand(stack);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => postPlan<unknown>(api, brand.prepareKey, planBody())),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(LIMIT);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(12 - LIMIT);
  });

  it('counts per brand: another brand is not affected', async () => {
    const full = await makePlanBrand(stack);
    for (let i = 0; i < LIMIT; i++) await postPlan(api, full.prepareKey, planBody());
    const other = await makePlanBrand(stack);
    expect((await postPlan(api, other.prepareKey, planBody())).status).toBe(201);
  });
});
