import {
  createPlansClient,
  planBody,
  planInputMessage,
  startStack,
  TEST_INTERNAL_TOKEN,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, postPlan } from '../support/plans';

// The limit of pending plans at its real default (docs/contract.md#limits: 200 per brand): the
// 200th pending plan is admitted, the 201st is 422 pending_plan_limit, and it is admitted after one
// plan is cancelled. The first 199 are prepared over gRPC (as the gateway does) to keep the brand's
// REST budget for the requests under test.

let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ plans: true });
  api = new ApiClient(stack.gateway.url);
});
afterAll(() => stack?.close());

it('admits 200 pending plans, refuses the 201st, and admits it after a cancellation', async () => {
  const brand = await makePlanBrand(stack);
  const internal = createPlansClient(stack.plans!.address, TEST_INTERNAL_TOKEN);
  const admin = createPlansClient(stack.plans!.address);
  try {
    const ids: string[] = [];
    for (let batch = 0; batch < 199; batch += 20) {
      const size = Math.min(20, 199 - batch);
      const res = await Promise.all(
        Array.from({ length: size }, () =>
          internal.plans('preparePlan', {
            brand_id: brand.brandId,
            input: planInputMessage(planBody()),
          }),
        ),
      );
      ids.push(...res.map((r) => r.plan!.id));
    }
    expect(new Set(ids).size).toBe(199);
    expect((await postPlan(api, brand.prepareKey, planBody())).status).toBe(201);

    const the201st = planBody();
    const refused = await postPlan<ErrorBody>(api, brand.prepareKey, the201st);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('pending_plan_limit');
    expect(refused.body.error.message).toMatch(/200/);

    await admin.plans('cancelPlan', { plan_id: ids[0]! });
    expect((await postPlan(api, brand.prepareKey, the201st)).status).toBe(201);
    expect((await postPlan(api, brand.prepareKey, planBody())).status).toBe(422);
  } finally {
    internal.close();
    admin.close();
  }
});
