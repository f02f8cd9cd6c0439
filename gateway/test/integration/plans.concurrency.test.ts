import { planBody, startStack, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, planRows, postPlan, type PlanOut } from '../support/plans';

// One plan per request_id under concurrency: parallel identical requests through two gateways make
// exactly one plan and get identical answers; parallel different inputs under one request_id: one
// wins, the rest conflict.

let stack: Stack;
let apis: ApiClient[];

beforeAll(async () => {
  stack = await startStack({ plans: true, gateways: 2 });
  apis = stack.gateways.map((g) => new ApiClient(g.url));
});
afterAll(() => stack?.close());

describe('concurrent preparation', () => {
  it('20 parallel identical requests create one plan and get 20 identical answers', async () => {
    const brand = await makePlanBrand(stack);
    const body = planBody();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postPlan(apis[i % apis.length]!, brand.prepareKey, body),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
    const bodies = answers.map((a) => a.body);
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await planRows(stack, brand.brandId)).toBe(1);
  });

  it('parallel different inputs under one request_id: one wins, the others conflict', async () => {
    const brand = await makePlanBrand(stack);
    const body = planBody();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postPlan<PlanOut | ErrorBody>(apis[i % apis.length]!, brand.prepareKey, {
          ...body,
          title: `Variant ${i}`,
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const conflicts = answers.filter((a) => a.status === 409);
    expect(conflicts).toHaveLength(9);
    for (const c of conflicts) expect((c.body as ErrorBody).error.code).toBe('request_conflict');
    expect(await planRows(stack, brand.brandId)).toBe(1);
  });
});
