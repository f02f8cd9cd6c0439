import {
  planBody,
  startGateway,
  startPlans,
  startStack,
  waitFor,
  type GatewayProcess,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { opsReadiness } from '../support/ops';
import { makePlanBrand, postPlan, type PlanBrand, type PlanOut } from '../support/plans';

// Issue 8, behaviour 4: plans live in PostgreSQL, not in a process. After the plans service
// and then the gateway are restarted, a retry still replays the same plan.

let stack: Stack;
let brand: PlanBrand;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  stack = await startStack({ plans: true });
  brand = await makePlanBrand(stack);
});
afterAll(async () => {
  await gateway?.stop();
  await stack?.close();
});

it('keeps plans across a restart of the plans service and of the gateway; reads stay ready meanwhile', async () => {
  const body = planBody();
  const first = await postPlan(new ApiClient(stack.gateway.url), brand.prepareKey, body);
  expect(first.status).toBe(201);

  // While the plans service is down, reads stay ready and only preparation is 503.
  const port = stack.plans!.port;
  expect(await stack.plans!.stop('SIGTERM')).toBe(0);
  const down = new ApiClient(stack.gateway.url);
  const refused = await postPlan<ErrorBody>(down, brand.prepareKey, body);
  expect(refused.status).toBe(503);
  expect(refused.body.error.code).toBe('service_unavailable');
  expect((await down.get('/api/v1/campaigns', { key: brand.readKey })).status).toBe(200);
  const ops = await opsReadiness(stack.gateway);
  expect(ops).toMatchObject({
    status: 200,
    body: { checks: { plans: 'degraded', records: 'ok' } },
  });

  // The plans service comes back on the same port, where the gateway expects it.
  const plans = await startPlans({ databaseUrl: stack.db.url, env: { GRPC_PORT: String(port) } });
  try {
    const api = new ApiClient(stack.gateway.url);
    const replay = await waitFor(
      async () => {
        const res = await postPlan<PlanOut>(api, brand.prepareKey, body);
        return res.status === 200 ? res : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    // A new gateway process (the old one stopped) answers the same.
    expect(await stack.gateway.stop('SIGTERM')).toBe(0);
    gateway = await startGateway({
      recordsAddr: stack.records.address,
      plansAddr: plans.address,
      redisUrl: stack.redisUrl,
      redisKeyPrefix: stack.redisKeyPrefix,
    });
    const again = await postPlan(new ApiClient(gateway.url), brand.prepareKey, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  } finally {
    await plans.stop();
  }
});
