import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import {
  LATEST_VERSION,
  McpHttp,
  pageOf,
  type RpcResponse,
  type ToolResult,
} from '../support/mcpHttp';

// REST and MCP calls of one brand draw on one budget (Plus: 60 a minute), and a refusal is
// HTTP 429 with Retry-After on both interfaces, every MCP method alike, tools/call included,
// as a JSON-RPC error carrying rate_limited and the retry delay
// (docs/contract.md#assistant-tools rule 3); validation and business refusals stay 200
// isError results.

const PLUS = 60;
const RATELIMIT = /^"brand";r=(\d+);t=(\d+)$/;

let stack: Stack;
let api: ApiClient;
let mcp: McpHttp;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  mcp = new McpHttp(api, { protocolVersion: LATEST_VERSION });
  // loads the OpenAPI validator once, before the bursts (it is fetched on first use)
  expect((await api.get('/openapi/service.yaml')).status).toBe(200);
});

afterAll(() => stack?.close());

/** A fresh Plus brand with 2 campaigns and `keys` live keys. */
async function plusBrand(keys = 1): Promise<string[]> {
  const { brand, owner, secret } = await makeBrandWithKey(stack.admin, { tier: 'plus' });
  await makeRecords(stack.db.pool, brand.id, 'campaigns', 2);
  const more = await Promise.all(
    Array.from({ length: keys - 1 }, () =>
      stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email }),
    ),
  );
  return [secret, ...more.map((k) => k.secret)];
}

type Outcome =
  | { via: 'rest'; ok: boolean; res: ApiResponse }
  | { via: 'mcp'; ok: boolean; res: ApiResponse<RpcResponse<ToolResult>> };

async function restCall(key: string): Promise<Outcome> {
  const res = await api.get<{ error?: { code: string } }>('/api/v1/campaigns?limit=5', { key });
  if (res.status === 200) return { via: 'rest', ok: true, res };
  expect(res.status).toBe(429);
  expect(res.body.error?.code).toBe('rate_limited');
  return { via: 'rest', ok: false, res };
}

async function mcpCall(key: string): Promise<Outcome> {
  const res = await mcp.rpc<ToolResult>(
    'tools/call',
    { name: 'list_campaigns', arguments: { limit: 5 } },
    { key },
  );
  if (res.status === 200) {
    expect(pageOf(res.body.result!).count).toBe(2);
    return { via: 'mcp', ok: true, res };
  }
  // a spent budget is no tool result: HTTP 429 and a JSON-RPC error for the call's id
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({
    jsonrpc: '2.0',
    id: res.id,
    error: { code: -32000, data: { code: 'rate_limited' } },
  });
  expect(res.body.result).toBeUndefined();
  return { via: 'mcp', ok: false, res };
}

function retryAfterOf(res: ApiResponse): number {
  const value = res.headers.get('retry-after');
  expect(value).toMatch(/^[1-9]\d*$/);
  const seconds = Number(value);
  expect(seconds).toBeLessThanOrEqual(60);
  return seconds;
}

function remainingOf(res: ApiResponse): number {
  const m = RATELIMIT.exec(res.headers.get('ratelimit') ?? '');
  if (!m) throw new Error(`bad RateLimit header: ${res.headers.get('ratelimit')}`);
  return Number(m[1]);
}

/** Checks what every counted response carries, and what a refusal adds. */
function expectCounted(outcomes: Outcome[]): void {
  for (const o of outcomes) {
    expect(o.res.headers.get('ratelimit-policy')).toBe(`"brand";q=${PLUS};w=60`);
    if (o.ok) {
      expect(o.res.headers.get('retry-after')).toBeNull();
      continue;
    }
    const seconds = retryAfterOf(o.res);
    expect(remainingOf(o.res)).toBe(0);
    const message =
      o.via === 'mcp'
        ? o.res.body.error?.message
        : (o.res.body as { error: { message: string } }).error.message;
    if (o.via === 'mcp') expect(o.res.body.error?.data?.retry_after).toBe(seconds);
    expect(message).toBe(
      `Rate limit of ${PLUS} requests a minute exceeded; retry after ${seconds} s.`,
    );
  }
}

describe('one budget for REST and MCP (issue 3, behaviour 4)', () => {
  it('40 REST + 40 MCP calls at once on a Plus brand: exactly 60 succeed', async () => {
    const [key] = await plusBrand();
    const outcomes = await Promise.all(
      Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? restCall(key!) : mcpCall(key!))),
    );
    expect(outcomes.filter((o) => o.via === 'rest')).toHaveLength(40);
    expect(outcomes.filter((o) => o.via === 'mcp')).toHaveLength(40);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(PLUS);
    expect(outcomes.filter((o) => !o.ok)).toHaveLength(80 - PLUS);
    // a refusal is HTTP 429 on both interfaces (issue 47: tools/call included)
    for (const o of outcomes) expect(o.res.status).toBe(o.ok ? 200 : 429);
    expectCounted(outcomes);
  });

  it('interleaved one by one, across two keys: the first 60 pass, then both interfaces are refused', async () => {
    const [restKey, mcpKey] = await plusBrand(2);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 80; i++) {
      outcomes.push(i % 2 === 0 ? await restCall(restKey!) : await mcpCall(mcpKey!));
    }
    expect(outcomes.map((o) => o.ok)).toEqual(Array.from({ length: 80 }, (_, i) => i < PLUS));
    // every success, whichever interface, took one unit of the same budget
    expect(outcomes.slice(0, PLUS).map((o) => remainingOf(o.res))).toEqual(
      Array.from({ length: PLUS }, (_, i) => PLUS - 1 - i),
    );
    expect(outcomes.slice(PLUS).map((o) => o.via)).toEqual(
      Array.from({ length: 80 - PLUS }, (_, i) => (i % 2 === 0 ? 'rest' : 'mcp')),
    );
    expectCounted(outcomes);
  });
});

describe('over the limit, every MCP message is an HTTP 429 JSON-RPC error (issue 47)', () => {
  let key: string;

  beforeAll(async () => {
    [key] = (await plusBrand()) as [string];
    for (let i = 0; i < PLUS; i++) expect((await restCall(key)).ok).toBe(true);
  });

  it.each([
    ['tools/list', undefined],
    ['ping', undefined],
    ['initialize', { protocolVersion: LATEST_VERSION, capabilities: {} }],
  ])('%s → 429 with error.data.code rate_limited and Retry-After', async (method, params) => {
    const res = await mcp.rpc(method, params, { key });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: res.id,
      error: { code: -32000, data: { code: 'rate_limited' } },
    });
    expect(res.body.result).toBeUndefined();
    const seconds = retryAfterOf(res);
    expect(res.body.error?.data?.retry_after).toBe(seconds);
    expect(res.headers.get('ratelimit-policy')).toBe(`"brand";q=${PLUS};w=60`);
  });

  it('a notification over the limit → 429 as well', async () => {
    const res = await mcp.post<RpcResponse>(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { key },
    );
    expect(res.status).toBe(429);
    expect(res.body.error?.data?.code).toBe('rate_limited');
    retryAfterOf(res);
  });

  it.each([
    ['list_campaigns', { limit: 5 }],
    ['prepare_campaign_plan', {}],
    ['no_such_tool', {}],
  ])(
    'a lone tools/call of %s → 429 with rate_limited and Retry-After, and refusals consume nothing',
    async (name, args) => {
      for (let i = 0; i < 3; i++) {
        const res = await mcp.rpc('tools/call', { name, arguments: args }, { key });
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({
          jsonrpc: '2.0',
          id: res.id,
          error: { code: -32000, data: { code: 'rate_limited' } },
        });
        expect(res.body.error?.data?.retry_after).toBe(retryAfterOf(res));
        expect(remainingOf(res)).toBe(0);
      }
    },
  );

  it('a 2025-03-26 batch of tools/call over the limit → 429 for the whole batch', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list_campaigns', arguments: {} },
    });
    const res = await mcp.post<RpcResponse>([call(1), call(2)], {
      key,
      protocolVersion: '2025-03-26',
    });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ id: null, error: { data: { code: 'rate_limited' } } });
    retryAfterOf(res);
  });

  it('another brand is unaffected', async () => {
    const [other] = await plusBrand();
    const o = await mcpCall(other!);
    expect(o.ok).toBe(true);
    expect(remainingOf(o.res)).toBe(PLUS - 1);
  });
});
