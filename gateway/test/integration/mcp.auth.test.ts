import { RESOURCES, toolNameOf, type ResourceName } from '@brand/shared/resources';
import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import {
  LATEST_VERSION,
  McpHttp,
  restWalk,
  unknownLiveKey,
  type RpcResponse,
  type ToolResult,
} from '../support/mcpHttp';

// Bad credentials are refused with 401 before anything runs, and a key of brand A can never read
// brand B through any tool or argument.

let stack: Stack;
let api: ApiClient;
let mcp: McpHttp;

interface Seeded {
  brandId: string;
  ownerEmail: string;
  key: string;
  /** Every record id of the brand, per resource, newest first (from REST). */
  ids: Record<ResourceName, string[]>;
}

async function seedBrand(): Promise<Seeded> {
  const { brand, owner, secret } = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  for (const resource of RESOURCES) await makeRecords(stack.db.pool, brand.id, resource, 4);
  const ids = {} as Record<ResourceName, string[]>;
  for (const resource of RESOURCES) {
    const pages = await restWalk<{ id: string }>(api, secret, resource, { limit: '200' });
    ids[resource] = pages.flatMap((p) => p.data.map((r) => r.id));
  }
  return { brandId: brand.id, ownerEmail: owner.email, key: secret, ids };
}

let a: Seeded;
let b: Seeded;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  api = new ApiClient(stack.gateway.url);
  mcp = new McpHttp(api, { protocolVersion: LATEST_VERSION });
  a = await seedBrand();
  b = await seedBrand();
});

afterAll(() => stack?.close());

/** The RateLimit header's remaining units, e.g. `"brand";r=57;t=60` → 57. */
const remaining = (res: ApiResponse): number => {
  const m = /r=(\d+)/.exec(res.headers.get('ratelimit') ?? '');
  if (!m) throw new Error(`no RateLimit header: ${res.headers.get('ratelimit')}`);
  return Number(m[1]);
};

function expect401(res: ApiResponse<RpcResponse>, code: 'missing_key' | 'invalid_key'): void {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer( |$)/);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  expect(res.body.error?.data?.code).toBe(code);
  expect(res.body.error?.message.length).toBeGreaterThan(10);
  expect(res.body.result).toBeUndefined();
  // only the per-address budget of unauthenticated callers was charged, never a brand's
  expect(res.headers.get('ratelimit-policy')).toMatch(/^"anonymous";/);
}

describe('authentication on POST /api/mcp (issue 3, behaviour 3)', () => {
  let testKey: string;

  beforeAll(async () => {
    testKey = (
      await stack.admin.createKey({
        brandId: a.brandId,
        actorEmail: a.ownerEmail,
        environment: 'test',
      })
    ).secret;
    expect(testKey).toMatch(/^bk_test_/);
  });

  const cases: Array<{
    label: string;
    auth: () => string | undefined;
    code: 'missing_key' | 'invalid_key';
  }> = [
    { label: 'no Authorization header', auth: () => undefined, code: 'missing_key' },
    { label: 'an empty Authorization header', auth: () => '', code: 'missing_key' },
    { label: 'Basic credentials', auth: () => 'Basic dXNlcjpwYXNzd29yZA==', code: 'missing_key' },
    { label: 'Basic with the key', auth: () => `Basic ${a.key}`, code: 'missing_key' },
    { label: 'lower-case bearer', auth: () => `bearer ${a.key}`, code: 'missing_key' },
    { label: 'upper-case BEARER', auth: () => `BEARER ${a.key}`, code: 'missing_key' },
    { label: 'the key without a scheme', auth: () => a.key, code: 'missing_key' },
    { label: '"Bearer" with nothing after it', auth: () => 'Bearer', code: 'missing_key' },
    { label: '"Bearer" and spaces', auth: () => 'Bearer    ', code: 'missing_key' },
    {
      label: 'a token that is not a key',
      auth: () => 'Bearer not-a-real-key',
      code: 'invalid_key',
    },
    {
      label: 'an unknown well-formed key',
      auth: () => `Bearer ${unknownLiveKey()}`,
      code: 'invalid_key',
    },
    {
      label: 'the key missing its last character',
      auth: () => `Bearer ${a.key.slice(0, -1)}`,
      code: 'invalid_key',
    },
    { label: 'the key twice', auth: () => `Bearer ${a.key} ${a.key}`, code: 'invalid_key' },
    {
      label: 'a bk_test_ key against the live gateway',
      auth: () => `Bearer ${testKey}`,
      code: 'invalid_key',
    },
  ];

  it.each(cases)('$label → 401 $code on every method', async ({ auth, code }) => {
    for (const [method, params] of [
      ['tools/call', { name: 'list_campaigns', arguments: {} }],
      ['tools/list', undefined],
      ['initialize', { protocolVersion: LATEST_VERSION, capabilities: {} }],
      ['ping', undefined],
    ] as const) {
      const res = await mcp.rpc(method, params, {
        authorization: auth(),
        protocolVersion: method === 'initialize' ? null : LATEST_VERSION,
      });
      expect401(res, code);
    }
  });

  // The endpoint answers /API/MCP and /api/mcp/ too, as express matches routes, and refuses
  // there in JSON-RPC as well (a hostile review of 2026-11-29 asked; it held).
  it.each(['/API/MCP', '/api/mcp/'])('%s refuses in JSON-RPC too', async (path) => {
    const res = await api.post<RpcResponse>(path, {
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers: {
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': LATEST_VERSION,
      },
    });
    expect401(res, 'missing_key');
  });

  it('a revoked key is refused at once with 401 invalid_key', async () => {
    const created = await stack.admin.createKey({ brandId: a.brandId, actorEmail: a.ownerEmail });
    // used once, so the gateway has it cached when it is revoked
    const before = await mcp.page('list_campaigns', {}, { key: created.secret });
    expect(before.count).toBeGreaterThan(0);
    await stack.admin.revokeKey(created.key.id, a.ownerEmail);
    const res = await mcp.rpc(
      'tools/call',
      { name: 'list_campaigns', arguments: {} },
      { key: created.secret },
    );
    expect401(res, 'invalid_key');
    expect(res.text).not.toContain(a.ids.campaigns[0]);
  });

  it('refused calls run no tool: the brand budget is untouched and no record is returned', async () => {
    const c = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const records = await makeRecords(stack.db.pool, c.brand.id, 'campaigns', 3);
    const cRevoked = await stack.admin.createKey({
      brandId: c.brand.id,
      actorEmail: c.owner.email,
    });
    await stack.admin.revokeKey(cRevoked.key.id, c.owner.email);
    const cTest = await stack.admin.createKey({
      brandId: c.brand.id,
      actorEmail: c.owner.email,
      environment: 'test',
    });
    const call = (opts: { key?: string; authorization?: string }) =>
      mcp.callTool('list_campaigns', { limit: 10 }, opts);

    const first = await call({ key: c.secret });
    expect(first.res.headers.get('ratelimit-policy')).toBe('"brand";q=60;w=60');
    const before = remaining(first.res);

    const refusedAuth = [
      `bearer ${c.secret}`,
      `Basic ${c.secret}`,
      c.secret,
      `Bearer ${cRevoked.secret}`,
      `Bearer ${cTest.secret}`,
      `Bearer ${c.secret.slice(0, -2)}xx`,
    ];
    for (const authorization of refusedAuth) {
      const res = await mcp.rpc(
        'tools/call',
        { name: 'list_campaigns', arguments: { limit: 10 } },
        { authorization },
      );
      expect(res.status).toBe(401);
      expect(res.body.result).toBeUndefined();
      for (const r of records) expect(res.text).not.toContain(r.id);
    }

    const after = await call({ key: c.secret });
    expect(remaining(after.res)).toBe(before - 1);
    expect((after.result.structuredContent as { count: number }).count).toBe(3);
  });
});

describe('brand isolation through every tool and argument (issue 3, behaviour 3)', () => {
  const seen: string[] = [];

  /** Calls a tool with A's key and records the raw response text for the final scan. */
  async function callAsA(
    name: string,
    args: unknown,
    opts: { headers?: Record<string, string>; extraParams?: Record<string, unknown> } = {},
  ): Promise<ToolResult> {
    const res = await mcp.post<RpcResponse<ToolResult>>(
      {
        jsonrpc: '2.0',
        id: seen.length + 1,
        method: 'tools/call',
        params: { name, arguments: args, ...opts.extraParams },
      },
      { key: a.key, headers: opts.headers },
    );
    seen.push(res.text);
    expect(res.status).toBe(200);
    if (!res.body.result) throw new Error(`no result: ${res.text}`);
    return res.body.result;
  }

  const idsOf = (result: ToolResult): string[] => {
    expect(result.isError).toBeUndefined();
    return (result.structuredContent as { data: Array<{ id: string }> }).data.map((r) => r.id);
  };
  const errorCodeOf = (result: ToolResult): string => {
    expect(result.isError).toBe(true);
    return (JSON.parse(result.content[0]!.text) as { error: { code: string } }).error.code;
  };

  it.each(RESOURCES)('%s: A sees exactly its own records, whatever it passes', async (resource) => {
    const tool = toolNameOf(resource);
    const own = a.ids[resource];
    expect(own.length).toBeGreaterThanOrEqual(4);

    for (const args of [
      {},
      { limit: 200 },
      { since: '1970-01-01T00:00:00Z' },
      { limit: 200, since: '2000-01-01T00:00:00+14:00' },
    ]) {
      expect(idsOf(await callAsA(tool, args))).toEqual(own);
    }

    // walking with limit 1 reads exactly A's records
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const result = await callAsA(tool, { limit: 1, ...(cursor ? { cursor } : {}) });
      walked.push(...idsOf(result));
      cursor = (result.structuredContent as { next_cursor?: string }).next_cursor;
    } while (cursor && walked.length < 50);
    expect(walked).toEqual(own);

    // things that look like brand switches, outside the arguments, are ignored
    const sideChannels = [
      { extraParams: { brand_id: b.brandId } },
      { extraParams: { _meta: { brand_id: b.brandId } } },
      { headers: { 'X-Brand-Id': b.brandId } },
    ];
    for (const opts of sideChannels) expect(idsOf(await callAsA(tool, {}, opts))).toEqual(own);

    // brand-switching arguments are unknown parameters
    for (const field of ['brand_id', 'brandId', 'brand', 'tenant_id', 'key']) {
      expect(errorCodeOf(await callAsA(tool, { [field]: b.brandId }))).toBe('invalid_parameter');
    }
    expect(errorCodeOf(await callAsA(tool, { brand_id: b.brandId, limit: 5 }))).toBe(
      'invalid_parameter',
    );
  });

  it.each(RESOURCES)("%s: B's cursors are invalid_cursor for A", async (resource) => {
    const tool = toolNameOf(resource);
    const bPage = await mcp.page(tool, { limit: 1 }, { key: b.key });
    const bCursor = bPage.next_cursor;
    expect(bCursor).toEqual(expect.any(String));
    expect(errorCodeOf(await callAsA(tool, { cursor: bCursor }))).toBe('invalid_cursor');
    expect(errorCodeOf(await callAsA(tool, { cursor: bCursor, limit: 200 }))).toBe(
      'invalid_cursor',
    );
    expect(
      errorCodeOf(await callAsA(tool, { cursor: bCursor, since: '1970-01-01T00:00:00Z' })),
    ).toBe('invalid_cursor');
    // a B cursor of every other resource, too
    for (const other of RESOURCES.filter((r) => r !== resource)) {
      const otherPage = await mcp.page(toolNameOf(other), { limit: 1 }, { key: b.key });
      expect(errorCodeOf(await callAsA(tool, { cursor: otherPage.next_cursor }))).toBe(
        'invalid_cursor',
      );
    }
  });

  it('and symmetrically, B never sees A', async () => {
    for (const resource of RESOURCES) {
      const page = await mcp.page(toolNameOf(resource), { limit: 200 }, { key: b.key });
      expect(page.data.map((r) => r.id)).toEqual(b.ids[resource]);
      for (const id of a.ids[resource]) expect(JSON.stringify(page)).not.toContain(id);
    }
  });

  it("no response to A's key ever carried a record or the id of brand B", () => {
    expect(seen.length).toBeGreaterThan(100);
    const bIds = [b.brandId, ...RESOURCES.flatMap((r) => b.ids[r])];
    expect(bIds.length).toBeGreaterThan(24);
    expect(seen.filter((text) => bIds.some((id) => text.includes(id)))).toEqual([]);
  });
});
