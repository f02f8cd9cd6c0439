import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RESOURCES, toolNameOf } from '@brand/shared/resources';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import { errorOf, LATEST_VERSION, pageOf, restWalk, type Page } from '../support/mcpHttp';

// Issue 3, behaviour 1: the official MCP TypeScript SDK client connects with a Bearer key,
// negotiates 2025-11-25, lists the tools and reads every campaign exactly as REST does.

const LIST_TOOLS = RESOURCES.map(toolNameOf);
const CAMPAIGNS = 230;

let stack: Stack;
let api: ApiClient;
let brandId: string;
let readKey: string;
let prepareKey: string;
const open: Client[] = [];

async function connect(key: string): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport;
}> {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'brand-records-it', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  open.push(client);
  // the transport reports failures of its background GET here; a 405 is not one
  expect(errors).toEqual([]);
  return { client, transport };
}

beforeAll(async () => {
  stack = await startStack({
    plans: true,
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  api = new ApiClient(stack.gateway.url);
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  brandId = seeded.brand.id;
  readKey = seeded.secret;
  prepareKey = (
    await stack.admin.createKey({
      brandId,
      actorEmail: seeded.owner.email,
      name: 'Planner',
      permissions: ['campaigns:prepare'],
    })
  ).secret;
  const [newest] = await makeRecords(stack.db.pool, brandId, 'campaigns', CAMPAIGNS);
  // children point at an existing campaign, so the brand keeps exactly CAMPAIGNS campaigns
  const parent = { campaign_id: newest!.id };
  await makeRecords(stack.db.pool, brandId, 'submissions', 4, () => parent);
  await makeRecords(stack.db.pool, brandId, 'payouts', 4, () => parent);
  await makeRecords(stack.db.pool, brandId, 'deposits', 4);
  await makeRecords(stack.db.pool, brandId, 'conversions', 4, () => parent);
  await makeRecords(stack.db.pool, brandId, 'links', 4, () => parent);
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
  await stack?.close();
});

describe('MCP SDK client against POST /api/mcp (issue 3, behaviour 1)', () => {
  it('connects statelessly and negotiates protocol 2025-11-25', async () => {
    const { client, transport } = await connect(readKey);
    expect(transport.protocolVersion).toBe(LATEST_VERSION);
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()).toEqual({
      name: 'brand-records',
      title: 'Brand Records',
      version: '1.0.0',
    });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toMatch(/next_cursor/);
    await expect(client.ping()).resolves.toEqual({});
  });

  it('lists the six read tools with schemas, readOnlyHint and paging guidance', async () => {
    const { client } = await connect(readKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(LIST_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 200 },
          cursor: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
        },
        additionalProperties: false,
      });
      expect(tool.inputSchema.required ?? []).toEqual([]);
      expect(tool.outputSchema).toMatchObject({
        type: 'object',
        properties: {
          resource: { const: tool.name.replace('list_', '') },
          count: { type: 'integer' },
          data: { type: 'array' },
          next_cursor: { type: 'string' },
        },
        required: ['resource', 'count', 'data'],
      });
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.description).toMatch(/next_cursor/);
      expect(tool.description).toMatch(/newest first/);
    }
    expect(tools.some((t) => t.name === 'prepare_campaign_plan')).toBe(false);
  });

  it('lists prepare_campaign_plan only for a key holding campaigns:prepare', async () => {
    const { client } = await connect(prepareKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...LIST_TOOLS, 'prepare_campaign_plan']);
    const prepare = tools.find((t) => t.name === 'prepare_campaign_plan')!;
    expect(prepare.annotations?.readOnlyHint).toBe(false);
    expect(prepare.inputSchema.required).toEqual(
      expect.arrayContaining(['request_id', 'title', 'goal', 'campaign_type', 'planning_budget']),
    );
  });

  it(`pages through all ${CAMPAIGNS} campaigns with next_cursor exactly as REST does`, async () => {
    const { client } = await connect(readKey);
    await client.listTools(); // caches the output schemas the client validates results against

    const mcpPages: Page[] = [];
    let cursor: string | undefined;
    do {
      const result = (await client.callTool({
        name: 'list_campaigns',
        arguments: { limit: 50, ...(cursor ? { cursor } : {}) },
      })) as CallToolResult;
      const page = pageOf(result as Parameters<typeof pageOf>[0]);
      mcpPages.push(page);
      cursor = page.next_cursor;
    } while (cursor && mcpPages.length < 10);

    const restPages = await restWalk(api, readKey, 'campaigns', { limit: '50' });
    expect(mcpPages.map((p) => p.count)).toEqual([50, 50, 50, 50, 30]);
    expect(mcpPages.every((p) => p.resource === 'campaigns')).toBe(true);
    expect(mcpPages.map((p) => p.next_cursor === undefined)).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
    const mcpRecords = mcpPages.flatMap((p) => p.data);
    const restRecords = restPages.flatMap((p) => p.data);
    expect(restRecords).toHaveLength(CAMPAIGNS);
    expect(mcpRecords).toEqual(restRecords);
    expect(new Set(mcpRecords.map((r) => r.id)).size).toBe(CAMPAIGNS);
    // the database's own newest-first order, not just agreement between the two interfaces
    const { rows } = await stack.db.pool.query<{ id: string }>(
      'select id from campaigns where brand_id = $1 order by created_at desc, id desc',
      [brandId],
    );
    expect(mcpRecords.map((r) => r.id)).toEqual(rows.map((r) => r.id));
  });

  it.each(RESOURCES.filter((r) => r !== 'campaigns'))(
    'list_%s results pass the SDK output-schema validation and match REST',
    async (resource) => {
      const { client } = await connect(readKey);
      await client.listTools();
      const result = await client.callTool({ name: toolNameOf(resource), arguments: { limit: 3 } });
      const page = pageOf(result as Parameters<typeof pageOf>[0]);
      const rest = await api.get<Page>(`/api/v1/${resource}?limit=3`, { key: readKey });
      expect(page).toEqual(rest.body);
      expect(page).toMatchObject({ resource, count: 3, next_cursor: expect.any(String) as string });
    },
  );

  it('prepare_campaign_plan prepares a plan through the plans service', async () => {
    const { client } = await connect(prepareKey);
    await client.listTools();
    const result = await client.callTool({
      name: 'prepare_campaign_plan',
      arguments: {
        request_id: '6f1c2b1e-8d3a-4c55-9b7e-2f0a1d9c4e11',
        title: 'Summer Glow clipping',
        goal: 'Awareness for the summer range',
        campaign_type: 'blitz',
        planned_for: '2026-06-01',
        review_on: '2026-05-20',
        planning_budget: 25000,
      },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      request_id: '6f1c2b1e-8d3a-4c55-9b7e-2f0a1d9c4e11',
      status: 'pending',
      campaign_type: 'blitz',
      planning_budget: '25000.00',
      review_path: expect.stringMatching(
        /^\/workspaces\/clipping\/plans\/pln_\w+\/review$/,
      ) as string,
    });
  });

  it('a key without campaigns:prepare calling prepare_campaign_plan gets an isError insufficient_permission result', async () => {
    const { client } = await connect(readKey);
    const result = await client.callTool({ name: 'prepare_campaign_plan', arguments: {} });
    const body = errorOf(result as Parameters<typeof errorOf>[0]);
    expect(body.error.code).toBe('insufficient_permission');
    expect(body.error.message).toMatch(/campaigns:prepare/);
  });

  it('a refusal of a list tool is an isError result the SDK hands back, not a thrown error', async () => {
    const { client } = await connect(readKey);
    await client.listTools();
    const result = await client.callTool({ name: 'list_campaigns', arguments: { limit: 1000 } });
    expect(errorOf(result as Parameters<typeof errorOf>[0]).error.code).toBe('invalid_parameter');
  });

  it('an unknown tool and arguments that are not an object come back as isError results (rule 2 of 4.2), not -32602', async () => {
    const { client } = await connect(prepareKey);
    await client.listTools();
    const unknown = await client.callTool({ name: 'list_widgets', arguments: {} });
    expect(errorOf(unknown as Parameters<typeof errorOf>[0]).error).toMatchObject({
      code: 'invalid_parameter',
      details: [{ field: 'name' }],
    });
    // what a careless assistant sends; the SDK passes it on as it is
    const notAnObject = (name: string, args: unknown) =>
      client.callTool({ name, arguments: args as Record<string, unknown> });
    for (const args of [[5], 'limit=5', null]) {
      const listed = await notAnObject('list_campaigns', args);
      expect(errorOf(listed as Parameters<typeof errorOf>[0]).error.code).toBe('invalid_parameter');
    }
    // as POST /api/v1/campaign-plans refuses a body that is not an object
    const planned = await notAnObject('prepare_campaign_plan', ['title']);
    expect(errorOf(planned as Parameters<typeof errorOf>[0]).error.code).toBe('validation_failed');
    const rest = await api.post<{ error: { code: string } }>('/api/v1/campaign-plans', {
      key: prepareKey,
      body: ['title'],
    });
    expect([rest.status, rest.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('over the rate limit a tools/call rejects with HTTP 429 and rate_limited, not an isError result (issue 47)', async () => {
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const { client } = await connect(plus.secret);
    // a validation refusal within the budget is still a result the SDK hands back
    const refused = await client.callTool({ name: 'list_campaigns', arguments: { limit: 1000 } });
    expect(errorOf(refused as Parameters<typeof errorOf>[0]).error.code).toBe('invalid_parameter');
    // spend the rest of the brand's 60 a minute over REST: one budget for both interfaces
    let spent = false;
    for (let i = 0; i < 60 && !spent; i++) {
      spent = (await api.get('/api/v1/campaigns?limit=1', { key: plus.secret })).status === 429;
    }
    expect(spent).toBe(true);

    const call = client.callTool({ name: 'list_campaigns', arguments: { limit: 5 } });
    await expect(call).rejects.toBeInstanceOf(StreamableHTTPError);
    const err = (await call.catch((e: unknown) => e)) as StreamableHTTPError;
    expect(err.code).toBe(429);
    // the message carries the JSON-RPC error body: the code and the delay to wait
    const body = JSON.parse(err.message.slice(err.message.indexOf('{'))) as {
      error: { code: number; data: { code: string; retry_after: number } };
    };
    expect(body.error.code).toBe(-32000);
    expect(body.error.data.code).toBe('rate_limited');
    expect(body.error.data.retry_after).toBeGreaterThanOrEqual(1);
    expect(body.error.data.retry_after).toBeLessThanOrEqual(60);
  });
});
