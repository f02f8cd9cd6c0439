import { planBody, startStack, type Stack } from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import type { ErrorBody } from '../support/mcpHttp';
import { makePlanBrand, postPlan, type PlanOut } from '../support/plans';

// One brand's plan requests cannot take the plans service's database from the others: a request
// waiting for its brand's plan lock holds a pooled connection, so the wait is bounded and one
// brand's waiters are few. Brand A's lock is held from outside (as a slow transaction of A's
// would hold it), A's requests pile up, and brand B's plan is still made at once.

let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ plans: true });
  api = new ApiClient(stack.gateway.url);
});
afterAll(() => stack?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Requests waiting for an advisory lock, as PostgreSQL sees them. */
async function lockWaiters(): Promise<number> {
  const r = await stack.db.pool.query<{ n: number }>(
    `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
  );
  return r.rows[0]?.n ?? 0;
}

it("one brand's requests waiting for its lock leave the pool to the others", async () => {
  const [a, b] = [await makePlanBrand(stack), await makePlanBrand(stack)];
  // A first plan warms the path (the gateway's first call to the plans service connects).
  expect((await postPlan(api, b.prepareKey, planBody())).status).toBe(201);
  const holder = await stack.db.pool.connect();
  try {
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `plans:${a.brandId}`,
    ]);
    const started = Date.now();
    const piled = Array.from({ length: 12 }, () =>
      postPlan<PlanOut | ErrorBody>(api, a.prepareKey, planBody()).then((r) => ({
        r,
        ms: Date.now() - started,
      })),
    );
    // A's requests have reached the lock (they open pool connections first), and pile up.
    while (!(await lockWaiters())) await sleep(20);
    await sleep(300);

    const bStarted = Date.now();
    const other = await postPlan<PlanOut | ErrorBody>(api, b.prepareKey, planBody());
    expect({ status: other.status, body: other.body }).toMatchObject({
      status: 201,
      body: { status: 'pending' },
    });
    expect(Date.now() - bStarted).toBeLessThan(1_000);

    // A's waiters are answered, each a retryable refusal, well inside the gateway's deadline.
    const answers = await Promise.all(piled);
    for (const { r, ms } of answers) {
      expect(r.status).toBe(503);
      expect((r.body as ErrorBody).error.code).toBe('service_unavailable');
      expect((r.body as ErrorBody).error.message).toMatch(/another request of this brand/i);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(ms).toBeLessThan(2_500);
    }
  } finally {
    await holder.query('rollback');
    holder.release();
  }
  // With the lock free again, A's next plan is made.
  const after: ApiResponse<PlanOut | ErrorBody> = await postPlan(api, a.prepareKey, planBody());
  expect(after.status).toBe(201);
});
