// S5: POST /api/v1/campaign-plans through the gateway to the plans service, in the same
// round-robin rounds as an S1f REST page (the target: replays at least as fast as S1f).
//   - "new": every request a fresh request_id (the idempotency key of docs/contract.md#campaign-plans), so each
//     one inserts a pending plan. A brand holds at most 200 pending plans (the next is 422
//     pending_plan_limit, docs/contract.md#limits), so the arm rotates through SETTINGS.planBrands brands'
//     keys (100 by default: 19,000 plans at 190 each, more than two cores create in the
//     run). Pending counts grow evenly over the run, as a busy brand's would; the limit
//     itself is never raised. A 422 makes the run invalid (the arm expects 201 only).
//   - "replay": the same key and the same body again and again: 200 with
//     Idempotent-Replayed, the stored plan (a lookup, no insert).
// CPU per request: gateway, plans and the plans service's PostgreSQL backends.
import { randomUUID } from 'node:crypto';
import { cpuOfBackends, cpuOfPid, runArms } from './arms.mjs';
import { cpuSources, getPage } from './pages.mjs';
import { createEnterpriseBrands } from './seed.mjs';
import { ADMIN_TOKEN, INTERNAL_TOKEN, MAINS, SETTINGS, say } from './settings.mjs';
import { spawnMeasured } from './stack.mjs';

const PLANS_PATH = '/api/v1/campaign-plans';

/**
 * A valid plan body (docs/contract.md#plan-input) with this request_id: testkit's planBody without `notes`
 * (the testkit is TypeScript that only jest compiles; the bench runs plain node).
 */
function planBody(requestId) {
  return JSON.stringify({
    request_id: requestId,
    title: 'Back-to-school launch',
    goal: 'Reach first-year students in Metro Manila',
    campaign_type: 'ugc',
    planned_for: '2027-06-01',
    review_on: '2027-05-15',
    planning_budget: '25000.50',
    summary: 'Short videos unboxing the new bag',
    brief: 'Show the bag in a real school day.',
    requirements: ['Tag the brand', 'Show the logo in the first 3 seconds'],
    platforms: ['tiktok', 'instagram'],
  });
}

/** The plans service, started before the gateway (which needs its address). */
export function startPlans(infra) {
  return spawnMeasured('plans', MAINS.plans, {
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    DATABASE_URL: infra.dbUrl,
    INTERNAL_TOKEN,
    ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    HEALTH_PROBE_INTERVAL_MS: '500',
  });
}

const post = (secret, body) => ({
  method: 'POST',
  path: PLANS_PATH,
  headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
  body,
});

export async function runPlansScenario(ctx) {
  const { gatewayUrl, plans } = ctx;
  say(`S5: ${SETTINGS.planBrands} brands with campaigns:prepare keys`);
  const brands = await createEnterpriseBrands(
    ctx.recordsAddress,
    ADMIN_TOKEN,
    SETTINGS.planBrands,
    {
      permissions: ['campaigns:prepare'],
      namePrefix: 'Plans Brand',
    },
  );
  // the replayed plan: created once, then the same key and body forever
  const replayBody = planBody(randomUUID());
  const first = await fetch(`${gatewayUrl}${PLANS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${brands[0].secret}`, 'content-type': 'application/json' },
    body: replayBody,
  });
  const again = await fetch(`${gatewayUrl}${PLANS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${brands[0].secret}`, 'content-type': 'application/json' },
    body: replayBody,
  });
  if (
    first.status !== 201 ||
    again.status !== 200 ||
    again.headers.get('idempotent-replayed') !== 'true'
  )
    throw new Error(
      `S5: a plan and its replay answered ${first.status} and ${again.status}: ${(await again.text()).slice(0, 300)}`,
    );
  const created = new Array(brands.length).fill(0);
  created[0] = 1;
  let next = 0;
  const newPlan = {
    method: 'POST',
    path: PLANS_PATH,
    // a fresh request_id every time, the brands in turn (see the file comment)
    setupRequest: (req) => {
      const i = next;
      next = (next + 1) % brands.length;
      created[i] += 1;
      return {
        ...req,
        headers: {
          authorization: `Bearer ${brands[i].secret}`,
          'content-type': 'application/json',
        },
        body: planBody(randomUUID()),
      };
    },
  };
  const plansCpu = async () => ({
    gateway: cpuOfPid(ctx.gateway.pid),
    plans: cpuOfPid(plans.pid),
    postgres: await cpuOfBackends(ctx.dbName, 'plans'),
  });
  const result = await runArms(
    'S5',
    [
      {
        name: 'S1f REST',
        url: gatewayUrl,
        request: getPage(ctx.loadBrand.secret, SETTINGS.pageSize),
        rows: SETTINGS.pageSize,
        cpu: cpuSources(ctx, 'system'),
      },
      { name: 'new', url: gatewayUrl, request: newPlan, expect: [201], cpu: plansCpu },
      {
        name: 'replay',
        url: gatewayUrl,
        request: post(brands[0].secret, replayBody),
        cpu: plansCpu,
      },
    ],
    ctx,
  );
  const most = Math.max(...created);
  ctx.notes.push(
    `S5: ${created.reduce((a, b) => a + b, 0)} new plans over ${brands.length} brands (at most ${most} pending per brand; the limit is 200)`,
  );
  if (most > SETTINGS.planBrandCapacity)
    ctx.invalid.push(`S5: a brand reached ${most} pending plans; raise planBrands`);
  return result;
}
