import { makeBrandWithKey, startStack, type Stack } from '@brand/testkit';

// Issue 11, behaviour 3 (records): /metrics on the internal listener exposes gRPC request
// counts and latency by method and outcome, and the values move when traffic flows.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** The value of one series, or 0 when it is not there yet. */
async function series(url: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => pattern.test(l));
  return line ? Number(line.split(' ').pop()) : 0;
}

it('counts ListRecords calls by outcome, and times them', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const ok = /^grpc_server_handled_total\{method="ListRecords",code="ok"\}/;
  const refused = /^grpc_server_handled_total\{method="ListRecords",code="invalid_parameter"\}/;
  const before = await series(stack.records.opsUrl, ok);
  const refusedBefore = await series(stack.records.opsUrl, refused);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${stack.gateway.url}/api/v1/links`, {
      headers: { Authorization: `Bearer ${brand.secret}` },
    });
    expect(res.status).toBe(200);
  }
  await expect(
    stack.admin.listRecords({ brand_id: brand.brand.id, resource: 'links', limit: 0 }),
  ).rejects.toMatchObject({ code: 'invalid_parameter' });
  expect(await series(stack.records.opsUrl, ok)).toBe(before + 3);
  expect(await series(stack.records.opsUrl, refused)).toBe(refusedBefore + 1);
  expect(
    await series(
      stack.records.opsUrl,
      /^grpc_server_handling_seconds_count\{method="ListRecords",code="ok"\}/,
    ),
  ).toBe(before + 3);
  expect(await series(stack.records.opsUrl, /^process_resident_memory_bytes /)).toBeGreaterThan(0);
});

it('the gateway counts HTTP requests by route and status on its internal listener', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  const pattern =
    /^http_request_duration_seconds_count\{.*route="\/api\/v1\/:resource".*status="200"/;
  const before = await series(stack.gateway.opsUrl, pattern);
  await fetch(`${stack.gateway.url}/api/v1/deposits`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  expect(await series(stack.gateway.opsUrl, pattern)).toBe(before + 1);
  expect(await series(stack.gateway.opsUrl, /^rate_limit_decisions_total\{/)).toBeGreaterThan(0);
});
