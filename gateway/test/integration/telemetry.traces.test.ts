import {
  makeBrandWithKey,
  makeRecords,
  startOtlpReceiver,
  startStack,
  waitFor,
  type OtlpReceiver,
  type Stack,
} from '@brand/testkit';

// Tracing, the request half: one REST request yields one trace whose spans come from the gateway
// and the records service and include the database query, exported by OTLP to a real receiver.
// Without OTLP configuration tracing is off (a no-op).

let stack: Stack;
let otlp: OtlpReceiver;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  stack = await startStack({
    gatewayEnv: otlp.envFor('gateway'),
    recordsEnv: otlp.envFor('records'),
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await otlp?.close();
});

it('one REST request is one trace across gateway, records and PostgreSQL', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  await makeRecords(stack.db.pool, brand.brand.id, 'payouts', 3);
  const res = await fetch(`${stack.gateway.url}/api/v1/payouts?limit=2`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  expect(res.status).toBe(200);

  const server = await waitFor(
    () =>
      otlp.spans.find(
        (s) =>
          s.service === 'gateway' &&
          s.kind === 2 &&
          /GET/.test(s.name) &&
          /payouts|resource/.test(JSON.stringify(s.attributes)),
      ),
    { timeoutMs: 10_000, what: 'the gateway server span of the request' },
  );
  const trace = await waitFor(
    () => {
      const spans = otlp.spans.filter((s) => s.traceId === server.traceId);
      const ok =
        spans.some((s) => s.service === 'records' && /ListRecords/.test(s.name)) &&
        spans.some((s) => s.service === 'records' && s.name.startsWith('pg.query:SELECT'));
      return ok ? spans : undefined;
    },
    { timeoutMs: 10_000, what: 'records and database spans in the same trace' },
  );
  expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'records']));
  // the gRPC client span in the gateway parents the records server span
  const listServer = trace.find(
    (s) => s.service === 'records' && /ListRecords/.test(s.name) && s.kind === 2,
  )!;
  expect(trace.find((s) => s.spanId === listServer.parentSpanId)?.service).toBe('gateway');
});

it('log lines carry the trace id of their request', async () => {
  const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  await fetch(`${stack.gateway.url}/api/v1/nope`, {
    headers: { Authorization: `Bearer ${brand.secret}` },
  });
  await waitFor(() => stack.gateway.logs().some((l) => /"trace_id":"[0-9a-f]{32}"/.test(l)), {
    what: 'a gateway log line with a trace_id',
  });
});
