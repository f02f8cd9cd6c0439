import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { z } from 'zod';
import { PlanInputSchema } from '@brand/shared/plans';
import {
  createPlansClient,
  planBody,
  startStack,
  type PlansClient,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import { errorOf, type ToolResult } from '../support/mcpHttp';
import { makePlanBrand, postPlan, type PlanBrand, type PlanOut } from '../support/plans';

// Over MCP, with the official SDK client: prepare_campaign_plan returns the same plan as REST
// (structuredContent and the same JSON text), each replays the other's plan, and refusals are
// isError results with REST's codes. Its inputSchema is the zod schema's.

const LIMIT = 3;
let stack: Stack;
let api: ApiClient;
let admin: PlansClient;
let brand: PlanBrand;
const open: Client[] = [];

async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'brand-plans-it', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  await client.listTools(); // caches the output schemas the client validates results against
  return client;
}

/** A fresh brand (its own pending count) and an SDK client on its prepare key. */
async function freshBrand(): Promise<{ brand: PlanBrand; client: Client }> {
  const fresh = await makePlanBrand(stack);
  return { brand: fresh, client: await connect(fresh.prepareKey) };
}

async function prepare(client: Client, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name: 'prepare_campaign_plan', arguments: args })) as ToolResult;
}

/** The plan of a successful result; the text content must be the same JSON. */
function planOf(result: ToolResult): PlanOut {
  if (result.isError) throw new Error(`expected a plan, got: ${result.content[0]?.text}`);
  expect(result.content).toHaveLength(1);
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return result.structuredContent as PlanOut;
}

beforeAll(async () => {
  stack = await startStack({
    plans: true,
    plansEnv: { PENDING_PLAN_LIMIT: String(LIMIT) },
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  api = new ApiClient(stack.gateway.url);
  admin = createPlansClient(stack.plans!.address);
  brand = await makePlanBrand(stack);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
  admin?.close();
  await stack?.close();
});

describe('prepare_campaign_plan over MCP', () => {
  it('is listed with the inputSchema generated from the shared zod schema', async () => {
    const client = await connect(brand.prepareKey);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'prepare_campaign_plan');
    expect(tool).toBeDefined();
    const expected = z.toJSONSchema(PlanInputSchema, { io: 'input', unrepresentable: 'any' });
    expect(tool!.inputSchema).toMatchObject({
      type: 'object',
      properties: expected.properties,
      required: expected.required,
      additionalProperties: false,
    });
    expect(tool!.outputSchema).toMatchObject({ type: 'object' });
    expect(tool!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('is not listed for a key without campaigns:prepare, and calling it is isError 403', async () => {
    const client = await connect(brand.readKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('prepare_campaign_plan');
    const body = errorOf(await prepare(client, planBody()));
    expect(body.error.code).toBe('insufficient_permission');
  });

  it('prepares a plan: structuredContent and text, no notes', async () => {
    const { client } = await freshBrand();
    const args = planBody({ campaign_type: 'blitz' });
    const result = await prepare(client, args);
    const plan = planOf(result);
    expect(plan).toMatchObject({
      request_id: args.request_id,
      status: 'pending',
      campaign_type: 'blitz',
      planning_budget: '25000.50',
    });
    expect(plan.review_path).toBe(`/workspaces/clipping/plans/${plan.id}/review`);
    expect(JSON.stringify(result)).not.toContain(String(args.notes));
  });

  it('replays a REST plan: the same plan as REST returned', async () => {
    const { brand: own, client } = await freshBrand();
    const body = planBody();
    const rest = await postPlan(api, own.prepareKey, body);
    expect(rest.status).toBe(201);
    expect(planOf(await prepare(client, body))).toEqual(rest.body);
  });

  it('is replayed by REST: 200 Idempotent-Replayed with the plan MCP returned', async () => {
    const { brand: own, client } = await freshBrand();
    const body = planBody({ campaign_type: 'package' });
    const viaMcp = planOf(await prepare(client, body));
    const rest = await postPlan(api, own.prepareKey, body);
    expect(rest.status).toBe(200);
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(rest.body).toEqual(viaMcp);
    expect(planOf(await prepare(client, body))).toEqual(viaMcp);
  });

  it('refuses changed input with an isError request_conflict', async () => {
    const { client } = await freshBrand();
    const body = planBody();
    planOf(await prepare(client, body));
    const error = errorOf(await prepare(client, { ...body, goal: 'Another goal' }));
    expect(error.error.code).toBe('request_conflict');
  });

  it('refuses a retry of a cancelled plan with an isError request_conflict', async () => {
    const { client } = await freshBrand();
    const body = planBody();
    const plan = planOf(await prepare(client, body));
    await admin.plans('cancelPlan', { plan_id: plan.id });
    expect(errorOf(await prepare(client, body)).error.code).toBe('request_conflict');
  });

  it('refuses bad input with an isError validation_failed naming the fields', async () => {
    const { client } = await freshBrand();
    const result = await prepare(
      client,
      planBody({ planned_for: '2026-02-30', planning_budget: '1.005', campaign_type: 'tv' }),
    );
    const { error } = errorOf(result);
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((d) => d.field).sort()).toEqual([
      'campaign_type',
      'planned_for',
      'planning_budget',
    ]);
  });

  it('refuses the plan after the pending limit with an isError pending_plan_limit', async () => {
    const { client } = await freshBrand();
    for (let i = 0; i < LIMIT; i++) planOf(await prepare(client, planBody()));
    const { error } = errorOf(await prepare(client, planBody()));
    expect(error.code).toBe('pending_plan_limit');
    expect(error.message).toMatch(/cancel/);
  });

  it('property: random invalid arguments are isError validation_failed, never a protocol error', async () => {
    const { client } = await freshBrand();
    const invalid = fc.oneof(
      fc.record({ planned_for: fc.constantFrom('2026-02-30', '2026-13-01', '01/02/2026', '') }),
      fc.record({
        planning_budget: fc.oneof(
          fc.integer({ max: 0 }),
          fc.constantFrom('1.234', '1e3', -0.5, null),
        ),
      }),
      fc.record({
        campaign_type: fc
          .string()
          .filter((t) => !['blitz', 'ugc', 'package', 'affiliate'].includes(t)),
      }),
      fc.record({ title: fc.oneof(fc.integer(), fc.constant('t'.repeat(201)), fc.constant('')) }),
      fc.record({
        requirements: fc.oneof(
          fc.string({ minLength: 1 }),
          fc.array(fc.integer(), { minLength: 1 }),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(invalid, async (change) => {
        const { error } = errorOf(await prepare(client, planBody(change)));
        expect(error.code).toBe('validation_failed');
        expect(error.details?.length).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
  });
});
