import {
  createPlansClient,
  makeBrandWithKey,
  planBody,
  scrapeMetric,
  startStack,
  TEST_INTERNAL_TOKEN,
  type PlansClient,
  type Stack,
} from '@brand/testkit';

// Metrics of records, the gateway and plans: /metrics on each internal listener exposes gRPC and
// HTTP request counts and latency, key-auth failures by reason and plan outcomes, and the values
// move when traffic flows.

let stack: Stack;
let plans: PlansClient;
beforeAll(async () => {
  stack = await startStack({ plans: true });
  plans = createPlansClient(stack.plans!.address);
});
afterAll(async () => {
  plans?.close();
  await stack?.close();
});

it('counts list calls by method and outcome, and times them', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  // REST pages reach records on the page stream (StreamRecordsPages, issue 25), each page
  // counted under the stream's method; a unary ListRecordsPage call counts under its own.
  const ok = /^grpc_server_handled_total\{method="StreamRecordsPages",code="ok"\}/;
  const refused = /^grpc_server_handled_total\{method="ListRecordsPage",code="invalid_parameter"\}/;
  const before = await scrapeMetric(stack.records.opsUrl, ok);
  const refusedBefore = await scrapeMetric(stack.records.opsUrl, refused);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${stack.gateway.url}/api/v1/links`, {
      headers: { Authorization: `Bearer ${brand.secret}` },
    });
    expect(res.status).toBe(200);
  }
  await expect(
    stack.admin.listRecordsPage({ brand_id: brand.brand.id, resource: 'links', limit: 0 }),
  ).rejects.toMatchObject({ code: 'invalid_parameter' });
  expect(await scrapeMetric(stack.records.opsUrl, ok)).toBe(before + 3);
  expect(await scrapeMetric(stack.records.opsUrl, refused)).toBe(refusedBefore + 1);
  expect(
    await scrapeMetric(
      stack.records.opsUrl,
      /^grpc_server_handling_seconds_count\{method="StreamRecordsPages",code="ok"\}/,
    ),
  ).toBe(before + 3);
  expect(
    await scrapeMetric(stack.records.opsUrl, /^process_resident_memory_bytes /),
  ).toBeGreaterThan(0);
});

it('the gateway counts HTTP requests by route and status on its internal listener', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const pattern =
    /^http_request_duration_seconds_count\{.*route="\/api\/v1\/:resource".*status="200"/;
  const before = await scrapeMetric(stack.gateway.opsUrl, pattern);
  await fetch(`${stack.gateway.url}/api/v1/deposits`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  expect(await scrapeMetric(stack.gateway.opsUrl, pattern)).toBe(before + 1);
  expect(await scrapeMetric(stack.gateway.opsUrl, /^rate_limit_decisions_total\{/)).toBeGreaterThan(
    0,
  );
});

it('the gateway counts refused keys by reason', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const failures = (reason: string) =>
    scrapeMetric(
      stack.gateway.opsUrl,
      new RegExp(`^api_key_auth_failures_total\\{reason="${reason}"\\} `),
    );
  const cases: Array<[string, string | undefined, string]> = [
    ['missing', undefined, '/api/v1/links'],
    ['wrong_scheme', `Basic ${brand.secret}`, '/api/v1/links'],
    ['malformed', 'Bearer not-a-key', '/api/v1/links'],
    ['wrong_environment', `Bearer bk_test_${'a1B2'.repeat(10)}`, '/api/v1/links'],
    ['unknown_or_revoked', `Bearer bk_live_${'z9Y8'.repeat(10)}`, '/api/v1/links'],
  ];
  for (const [reason, authorization, path] of cases) {
    const before = await failures(reason);
    const res = await fetch(`${stack.gateway.url}${path}`, {
      headers: authorization ? { Authorization: authorization } : {},
    });
    expect(res.status).toBe(401);
    expect(await failures(reason)).toBe(before + 1);
  }
  // a valid key without campaigns:prepare asking to prepare a plan
  const before = await failures('forbidden_permission');
  const res = await fetch(`${stack.gateway.url}/api/v1/campaign-plans`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${brand.secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(planBody()),
  });
  expect(res.status).toBe(403);
  expect(await failures('forbidden_permission')).toBe(before + 1);
  // an admitted request is no failure
  const total = await scrapeMetric(stack.gateway.opsUrl, /^api_key_auth_failures_total\{/);
  await fetch(`${stack.gateway.url}/api/v1/links`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  expect(await scrapeMetric(stack.gateway.opsUrl, /^api_key_auth_failures_total\{/)).toBe(total);
});

it('the plans service counts prepare outcomes, cancels and completes', async () => {
  const brand = await makeBrandWithKey(stack.admin, {
    tier: 'enterprise',
    permissions: ['campaigns:prepare'],
  });
  const prepared = (outcome: string) =>
    scrapeMetric(
      stack.plans!.opsUrl,
      new RegExp(`^plans_prepare_requests_total\\{outcome="${outcome}"\\} `),
    );
  const finished = (action: string, outcome: string) =>
    scrapeMetric(
      stack.plans!.opsUrl,
      new RegExp(`^plans_finish_requests_total\\{action="${action}",outcome="${outcome}"\\} `),
    );
  const outcomes = ['created', 'replayed', 'conflict', 'invalid'];
  const before = Object.fromEntries(
    await Promise.all(outcomes.map(async (o) => [o, await prepared(o)] as const)),
  );
  const post = (body: unknown) =>
    fetch(`${stack.gateway.url}/api/v1/campaign-plans`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${brand.secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const body = planBody();
  const first = await post(body);
  expect(first.status).toBe(201);
  const plan = (await first.json()) as { id: string };
  expect((await post(body)).status).toBe(200);
  expect((await post({ ...body, title: 'Another title' })).status).toBe(409);
  // the gateway's data-plane call with a bad brand id (the gateway never sends one)
  const internal = createPlansClient(stack.plans!.address, TEST_INTERNAL_TOKEN);
  await expect(
    internal.plans('preparePlan', { brand_id: 'nope', input: undefined }),
  ).rejects.toMatchObject({ code: 'validation_failed' });
  internal.close();
  expect(await prepared('invalid')).toBe(before.invalid! + 1);
  expect(await prepared('created')).toBe(before.created! + 1);
  expect(await prepared('replayed')).toBe(before.replayed! + 1);
  expect(await prepared('conflict')).toBe(before.conflict! + 1);

  const cancelledBefore = await finished('cancel', 'changed');
  const againBefore = await finished('cancel', 'unchanged');
  const refusedBefore = await finished('complete', 'refused');
  await plans.plans('cancelPlan', { plan_id: plan.id });
  await plans.plans('cancelPlan', { plan_id: plan.id });
  await expect(plans.plans('completePlan', { plan_id: plan.id })).rejects.toMatchObject({
    code: 'precondition_failed',
  });
  expect(await finished('cancel', 'changed')).toBe(cancelledBefore + 1);
  expect(await finished('cancel', 'unchanged')).toBe(againBefore + 1);
  expect(await finished('complete', 'refused')).toBe(refusedBefore + 1);
});
