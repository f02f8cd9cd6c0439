import { gzipSync } from 'node:zlib';
import { createConnection } from 'node:net';
import {
  makeBrandWithKey,
  makeRecords,
  startGateway,
  startStack,
  type GatewayProcess,
  type Stack,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import {
  errorOf,
  LATEST_VERSION,
  McpHttp,
  MCP_PATH,
  rawRequest,
  SUPPORTED_VERSIONS,
  type RawResponse,
  type RpcResponse,
  type ToolResult,
} from '../support/mcpHttp';

// POST /api/mcp over raw HTTP. Every response goes through ApiClient (or rawRequest), so each one
// is also checked against the served OpenAPI document.

const ALLOWED_ORIGIN = 'https://app.example.com';
const SMALL_BODY_LIMIT = 2048;

let stack: Stack;
let key: string;
let mcp: McpHttp;
/** A second gateway on the same records and Redis: a small body limit and an Origin allow-list. */
let strict: GatewayProcess;
let strictMcp: McpHttp;
const raw: RawResponse[] = [];

type Rpc<R = Record<string, unknown>> = ApiResponse<RpcResponse<R>>;

const rpcError = (res: Rpc) => {
  if (!res.body?.error) throw new Error(`expected a JSON-RPC error, got ${res.text}`);
  return res.body.error;
};

/** (toMatchObject would accept any string for a RegExp, so messages are matched here.) */
function expectRpcError(res: Rpc, code: number, message: RegExp | string): void {
  const error = rpcError(res);
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  expect(res.body.result).toBeUndefined();
}

async function rawPost(
  headers: Record<string, string>,
  body: string,
  base = stack.gateway.url,
): Promise<RawResponse> {
  const res = await rawRequest(base, { method: 'POST', path: MCP_PATH, headers, body });
  raw.push(res);
  return res;
}

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  strict = await startGateway({
    recordsAddr: stack.records.address,
    redisUrl: stack.redisUrl,
    redisKeyPrefix: stack.redisKeyPrefix,
    env: {
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000',
      MCP_MAX_BODY_BYTES: String(SMALL_BODY_LIMIT),
      MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://console.example.com`,
    },
  });
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = seeded.secret;
  await makeRecords(stack.db.pool, seeded.brand.id, 'campaigns', 3);
  mcp = new McpHttp(new ApiClient(stack.gateway.url), { key, protocolVersion: LATEST_VERSION });
  const other = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  strictMcp = new McpHttp(new ApiClient(strict.url), {
    key: other.secret,
    protocolVersion: LATEST_VERSION,
  });
});

afterAll(async () => {
  await strict?.stop('SIGTERM', 5_000);
  await stack?.close();
});

describe('Accept is read leniently: JSON is always the answer', () => {
  it.each([
    'application/json',
    'text/event-stream',
    'application/json, text/event-stream',
    'text/event-stream, application/json;q=0.5',
    '*/*',
    'text/html',
  ])('Accept: %s → 200 application/json', async (accept) => {
    const res = await mcp.rpc<{ tools: unknown[] }>('tools/list', undefined, {
      headers: { Accept: accept },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.result?.tools).toHaveLength(6);
  });

  it('no Accept header at all → 200 application/json', async () => {
    const res = await rawPost(
      {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': LATEST_VERSION,
      },
      JSON.stringify({ jsonrpc: '2.0', id: 'no-accept', method: 'ping' }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'no-accept', result: {} });
  });
});

describe('initialize', () => {
  const initialize = (protocolVersion: unknown) =>
    mcp.rpc<{ protocolVersion: string; serverInfo: unknown; capabilities: unknown }>(
      'initialize',
      {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'raw-http-test', version: '0.0.1' },
      },
      { protocolVersion: null },
    );

  it.each(SUPPORTED_VERSIONS)('a client asking for %s gets that version', async (version) => {
    const res = await initialize(version);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: res.id,
      result: {
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'brand-records', version: '1.0.0' },
      },
    });
  });

  it.each(['2024-11-05', '1999-01-01', '2099-01-01', 'latest'])(
    'a client asking for unknown version %s is answered with 2025-11-25',
    async (version) => {
      const res = await initialize(version);
      expect(res.status).toBe(200);
      expect(res.body.result?.protocolVersion).toBe('2025-11-25');
    },
  );

  it('initialize without a protocolVersion is -32602 naming it', async () => {
    const res = await mcp.rpc('initialize', { capabilities: {} }, { protocolVersion: null });
    expect(res.status).toBe(200);
    expectRpcError(
      res,
      -32602,
      'Invalid params for initialize: protocolVersion: expected string, received undefined',
    );
    expect(res.body.id).toBe(res.id);
  });

  // It once blamed protocolVersion for any failure, a present one too, and repeated the code
  // in the message ("MCP error -32602: ...").
  it('initialize with capabilities [] is -32602 naming capabilities, not protocolVersion', async () => {
    const res = await mcp.rpc(
      'initialize',
      { protocolVersion: LATEST_VERSION, capabilities: [] },
      { protocolVersion: null },
    );
    expect(res.status).toBe(200);
    expectRpcError(
      res,
      -32602,
      'Invalid params for initialize: capabilities: expected object, received array',
    );
  });
});

describe('MCP-Protocol-Version header', () => {
  it.each(SUPPORTED_VERSIONS)('%s is accepted', async (version) => {
    const res = await mcp.rpc('ping', undefined, { protocolVersion: version });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });

  it.each(['2024-11-05', '2025-11-26', '1.0', 'garbage'])(
    'unsupported %s is 400 with a JSON-RPC error naming the supported versions',
    async (version) => {
      const res = await mcp.rpc('ping', undefined, { protocolVersion: version });
      expect(res.status).toBe(400);
      const error = rpcError(res);
      expect(error.code).toBe(-32600);
      expect(error.message).toContain(`"${version}"`);
      for (const v of SUPPORTED_VERSIONS) expect(error.message).toContain(v);
      expect(res.body.result).toBeUndefined();
    },
  );
});

describe('ping and notifications', () => {
  it.each([7, 'req-abc'])('ping with id %p answers {} under that id', async (id) => {
    const res = await mcp.post<Rpc>({ jsonrpc: '2.0', id, method: 'ping' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id, result: {} });
  });

  it.each([
    ['notifications/initialized', undefined],
    ['notifications/cancelled', { requestId: 3, reason: 'user gave up' }],
    ['notifications/roots/list_changed', undefined],
    ['notifications/something_new', { x: 1 }],
  ])('%s → 202 with an empty body', async (method, params) => {
    const res = await mcp.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('a JSON-RPC response sent by the client is accepted with 202', async () => {
    const res = await mcp.post({ jsonrpc: '2.0', id: 99, result: {} });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });
});

describe('only POST: GET and DELETE are 405', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('%s → 405, Allow: POST, JSON-RPC error', async (m) => {
    const res = await mcp.api.request<RpcResponse>(m, MCP_PATH, {
      key,
      headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': LATEST_VERSION },
    });
    mcp.responses.push(res);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, data: { code: 'method_not_allowed' } },
    });
  });
});

describe('JSON-RPC protocol errors', () => {
  it.each([
    ['a truncated object', '{"jsonrpc":"2.0","id":1,'],
    ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"} x'],
    ['an empty body', ''],
    ['single quotes', "{'jsonrpc':'2.0','id':1,'method':'ping'}"],
  ])('malformed JSON (%s) → 400 -32700, id null', async (_, rawBody) => {
    const res = await mcp.post<RpcResponse>(undefined, { rawBody });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it.each([
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }],
    ['no jsonrpc', { id: 1, method: 'ping' }],
    ['no method', { jsonrpc: '2.0', id: 1 }],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 42 }],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }],
    ['string params', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }],
    ['a JSON number', 42],
    ['a JSON string', 'ping'],
    ['JSON null', null],
  ])('an invalid request (%s) → 400 -32600', async (_, body) => {
    const res = await mcp.post<RpcResponse>(undefined, { rawBody: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const error = rpcError(res);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/^Invalid Request/);
  });

  it('an invalid request echoes a usable id', async () => {
    const res = await mcp.post<RpcResponse>({ jsonrpc: '1.0', id: 'keep-me', method: 'ping' });
    expect(res.body.id).toBe('keep-me');
  });

  it.each(['resources/list', 'prompts/list', 'completion/complete', 'tools/delete', 'PING'])(
    'unknown method %s → 200 -32601 under the request id',
    async (method) => {
      const res = await mcp.rpc(method, {});
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(res.id);
      expect(rpcError(res).code).toBe(-32601);
    },
  );

  // docs/contract.md#assistant-tools rule 2: a validation refusal of a tool call is a result
  it.each(['list_widgets', 'LIST_CAMPAIGNS', 'list_campaigns '])(
    'unknown tool %p → 200, an isError result invalid_parameter naming it and every tool',
    async (name) => {
      const body = await mcp.toolError(name, {});
      expect(body.error).toMatchObject({
        code: 'invalid_parameter',
        message: expect.stringMatching(
          new RegExp(
            `^Unknown tool ${JSON.stringify(name)}: the tools are list_campaigns, .* prepare_campaign_plan `,
          ),
        ) as string,
        details: [{ field: 'name' }],
      });
    },
  );

  it.each([
    ['a string', 'list_campaigns', 'limit=5', 'invalid_parameter'],
    ['an array', 'list_campaigns', [5], 'invalid_parameter'],
    ['null', 'list_links', null, 'invalid_parameter'],
    ['a number', 'list_payouts', 7, 'invalid_parameter'],
  ])(
    'arguments as %s → 200, an isError result %s, as REST refuses',
    async (_, name, args, code) => {
      const body = await mcp.toolError(name, args);
      expect(body.error.code).toBe(code);
      expect(body.error.message).toMatch(/must be an object/);
    },
  );

  const noName = /^Invalid params: tools\/call needs "name", the tool name as a non-empty string/;
  it.each([
    ['no params', undefined, noName],
    ['no name', { arguments: {} }, noName],
    ['an empty name', { name: '', arguments: {} }, noName],
    ['a numeric name', { name: 7 }, noName],
    ['params as an array', ['list_campaigns', {}], /^Invalid params: params must be an object/],
  ])('tools/call with %s (no tool call at all) → -32602', async (_, params, message) => {
    const res = await mcp.rpc('tools/call', params);
    expect(res.status).toBe(200);
    expectRpcError(res, -32602, message);
  });
});

describe('params the MCP SDK would not accept are refused at once, never left to time out', () => {
  it.each([
    ['ping', [1, 2]],
    ['tools/list', []],
    ['tools/list', { _meta: 'not an object' }],
    ['tools/list', { _meta: { progressToken: { nested: true } } }],
    ['tools/call', { name: 'list_campaigns', _meta: 5 }],
  ])('%s with params %j → -32602 under the request id', async (method, params) => {
    const started = Date.now();
    const res = await mcp.rpc(method, params);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(res.id);
    expect(rpcError(res).code).toBe(-32602);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  // A hostile review (2026-11-29): a task-augmented request (MCP 2025-11-25's params.task) to
  // this server, which declares no tasks, was answered -32603, an internal error, by the SDK.
  it.each([
    ['ping', { task: {} }],
    ['tools/list', { task: {} }],
    ['tools/call', { name: 'list_links', arguments: {}, task: { ttl: 60_000 } }],
  ])('%s asking for a task (%j) → -32602: this server runs none', async (method, params) => {
    const res = await mcp.rpc(method, params);
    expect(res.status).toBe(200);
    expectRpcError(res, -32602, /^Invalid params: this server runs no tasks/);
  });

  // A hostile review (2026-11-30): tools/list answered its one page whatever cursor it was
  // given; MCP's pagination says an invalid cursor should be -32602.
  it('tools/list with a cursor → -32602: its one page has no next cursor to give back', async () => {
    for (const cursor of ['zzz', '']) {
      const res = await mcp.rpc('tools/list', { cursor });
      expect(res.status).toBe(200);
      expectRpcError(res, -32602, /cursor/);
    }
  });

  it('a notification with array params is accepted (202) and ignored', async () => {
    const res = await mcp.post({ jsonrpc: '2.0', method: 'notifications/initialized', params: [] });
    expect(res.status).toBe(202);
  });
});

describe('Content-Type', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'])(
    '%s → 415 with a JSON-RPC error',
    async (contentType) => {
      const res = await mcp.post<RpcResponse>(undefined, {
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        headers: { 'Content-Type': contentType },
      });
      expect(res.status).toBe(415);
      expectRpcError(res, -32600, 'Content-Type must be application/json.');
    },
  );

  it('a body without Content-Type → 415', async () => {
    const res = await rawPost(
      { Authorization: `Bearer ${key}`, Accept: 'application/json' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    );
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: { code: -32600 } });
  });

  // A hostile review (2026-11-30): the charset was ignored, so a UTF-16 body was -32700 and a
  // Latin-1 one was read as UTF-8, where REST answers 415 for a charset it does not decode.
  it('a charset other than UTF-8 is 415, as over REST', async () => {
    for (const charset of ['utf-16', 'latin1', 'ISO-8859-1']) {
      const res = await mcp.post<RpcResponse>(
        { jsonrpc: '2.0', id: 6, method: 'ping' },
        { headers: { 'Content-Type': `application/json; charset=${charset}` } },
      );
      expect([charset, res.status, res.body.error?.code]).toEqual([charset, 415, -32600]);
    }
    const quoted = await mcp.post<RpcResponse>(
      { jsonrpc: '2.0', id: 7, method: 'ping' },
      { headers: { 'Content-Type': 'application/json; charset="UTF-8"' } },
    );
    expect(quoted.status).toBe(200);
  });

  it('application/json; charset=utf-8 is accepted', async () => {
    const res = await mcp.post<RpcResponse>(
      { jsonrpc: '2.0', id: 5, method: 'ping' },
      { headers: { 'Content-Type': 'application/json; charset=utf-8' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });

  // The outside conformance probe (2026-11-30): a body after a UTF-8 byte order mark was -32700
  // here while the REST plan endpoint reads it (RFC 8259 lets a parser ignore the mark).
  it('a body after a UTF-8 byte order mark is read, as over REST', async () => {
    const res = await rawPost(
      {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json; charset=utf8',
        Accept: 'application/json',
      },
      `\uFEFF${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}`,
    );
    expect([res.status, res.body]).toEqual([200, { jsonrpc: '2.0', id: 8, result: {} }]);
  });
});

// The outside probe (2026-11-30): the refusals before the JSON-RPC exchange (413, 415, a missing
// body, -32700, an unsupported MCP-Protocol-Version, an invalid envelope) carried neither
// error.data.code nor request_id, while the endpoint's 401/403/405/429 did; and Content-Encoding
// zstd was 400 here but 415 over REST.
describe('transport refusals carry the REST code and the request id', () => {
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  function expectData(
    res: { status: number; requestId: string | undefined; body: unknown },
    status: number,
    rpcCode: number,
    code: string,
  ): void {
    const error = (res.body as { error?: { code?: number; data?: Record<string, unknown> } }).error;
    expect({ status: res.status, rpcCode: error?.code, data: error?.data }).toEqual({
      status,
      rpcCode,
      data: { code, request_id: res.requestId },
    });
    expect(res.requestId).toMatch(/^req_/);
  }

  const viaFetch = async (
    rawBody: string | Uint8Array,
    headers: Record<string, string> = {},
    client: McpHttp = mcp,
  ) => {
    const res = await client.post<RpcResponse>(undefined, { rawBody, headers });
    return {
      status: res.status,
      requestId: res.headers.get('x-request-id') ?? undefined,
      body: res.body,
    };
  };

  it('413 payload_too_large', async () => {
    expectData(
      await viaFetch(`{"pad":"${'x'.repeat(SMALL_BODY_LIMIT)}"}`, {}, strictMcp),
      413,
      -32600,
      'payload_too_large',
    );
  });

  it('415 unsupported_media_type: no JSON Content-Type, or Content-Encoding zstd as REST answers it', async () => {
    expectData(
      await viaFetch(ping, { 'Content-Type': 'text/plain' }),
      415,
      -32600,
      'unsupported_media_type',
    );
    expectData(
      await viaFetch(ping, { 'Content-Encoding': 'zstd' }),
      415,
      -32600,
      'unsupported_media_type',
    );
  });

  it('400 malformed_request: not JSON, not in its Content-Encoding, an unsupported version, an invalid envelope', async () => {
    expectData(await viaFetch('{"jsonrpc":'), 400, -32700, 'malformed_request');
    expectData(
      await viaFetch(ping, { 'Content-Encoding': 'gzip' }),
      400,
      -32600,
      'malformed_request',
    );
    expectData(
      await viaFetch(ping, { 'MCP-Protocol-Version': '1999-01-01' }),
      400,
      -32600,
      'malformed_request',
    );
    expectData(
      await viaFetch('{"jsonrpc":"1.0","id":1,"method":"ping"}'),
      400,
      -32600,
      'malformed_request',
    );
  });

  // The outside probe (2026-11-30): a header sent twice (Node joins the two with ", ") was called
  // an unsupported version, the same version twice included.
  it('400 malformed_request: MCP-Protocol-Version given twice says so', async () => {
    for (const twice of ['2025-06-18, 2025-06-18', '2025-06-18, 2025-11-25']) {
      const res = await viaFetch(ping, { 'MCP-Protocol-Version': twice });
      expectData(res, 400, -32600, 'malformed_request');
      expect((res.body as { error: { message: string } }).error.message).toBe(
        `MCP-Protocol-Version was given more than once ("${twice}"); send it once.`,
      );
    }
  });

  // The outside probe (2026-11-30): bytes that are not UTF-8 were read with U+FFFD in their
  // place (REST stored a plan titled "caf\uFFFD"); JSON is UTF-8 (RFC 8259), so they are no JSON.
  it('400 malformed_request: a body that is not UTF-8, as sent or once inflated', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_payouts","arguments":{"cursor":"caf',
      ),
      Buffer.from([0xe9]),
      Buffer.from('"}}}'),
    ]);
    expectData(await viaFetch(latin1), 400, -32700, 'malformed_request');
    expectData(
      await viaFetch(gzipSync(latin1), { 'Content-Encoding': 'gzip' }),
      400,
      -32700,
      'malformed_request',
    );
  });

  it('400 malformed_request: a JSON Content-Type with no body at all', async () => {
    const url = new URL(stack.gateway.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () =>
        socket.write(
          `POST ${MCP_PATH} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n` +
            `Content-Type: application/json\r\nConnection: close\r\n\r\n`,
        ),
      );
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expectData(
      {
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
        requestId: /\r\nx-request-id: (\S+)/i.exec(head)?.[1],
        body: JSON.parse(body) as unknown,
      },
      400,
      -32600,
      'malformed_request',
    );
  });
});

describe('body size limit', () => {
  const pingOfSize = (bytes: number) => {
    const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } });
    return JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(bytes - base.length) },
    });
  };

  it('the default limit refuses a body over 576 KiB with 413 and a JSON-RPC error', async () => {
    const rawBody = pingOfSize(576 * 1024 + 1);
    expect(Buffer.byteLength(rawBody)).toBe(576 * 1024 + 1);
    const res = await mcp.post<RpcResponse>(undefined, { rawBody });
    expect(res.status).toBe(413);
    expectRpcError(res, -32600, 'Request body exceeds 589824 bytes.');
  });

  it('a body of exactly 576 KiB is accepted', async () => {
    const res = await mcp.post<RpcResponse>(undefined, { rawBody: pingOfSize(576 * 1024) });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });

  it(`MCP_MAX_BODY_BYTES=${SMALL_BODY_LIMIT}: one byte over is 413, the limit itself is fine`, async () => {
    const over = await strictMcp.post<RpcResponse>(undefined, {
      rawBody: pingOfSize(SMALL_BODY_LIMIT + 1),
    });
    expect(over.status).toBe(413);
    expect(rpcError(over)).toMatchObject({
      code: -32600,
      message: `Request body exceeds ${SMALL_BODY_LIMIT} bytes.`,
    });
    const at = await strictMcp.post<RpcResponse>(undefined, {
      rawBody: pingOfSize(SMALL_BODY_LIMIT),
    });
    expect(at.status).toBe(200);
  });

  it('a chunked body over the limit (no Content-Length) is 413 too', async () => {
    const res = await rawPost(
      {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
      },
      pingOfSize(SMALL_BODY_LIMIT * 2),
      strict.url,
    );
    expect(res.status).toBe(413);
  });
});

describe('batches (JSON arrays)', () => {
  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

  it.each(['2025-06-18', '2025-11-25'])(
    'under %s a batch is 400 -32600 saying batches are not supported',
    async (version) => {
      const res = await mcp.post<RpcResponse>([ping(1), ping(2)], { protocolVersion: version });
      expect(res.status).toBe(400);
      expect(Array.isArray(res.body)).toBe(false);
      expect(rpcError(res as Rpc)).toMatchObject({
        code: -32600,
        message: expect.stringContaining(
          `batches are not supported in protocol version ${version}`,
        ) as string,
      });
    },
  );

  it.each([['2025-03-26'], [null]])(
    'under %s a batch gets an array of answers; invalid members get -32600 each',
    async (version) => {
      const res = await mcp.post<RpcResponse[]>(
        [
          ping(1),
          { jsonrpc: '1.0', id: 2, method: 'ping' },
          { jsonrpc: '2.0', id: 3, method: 'tools/list' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 4 },
          { jsonrpc: '2.0', id: 5, method: 'no/such/method' },
          { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_campaigns' } },
        ],
        { protocolVersion: version },
      );
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      const byId = new Map(res.body.map((r) => [r.id, r]));
      expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(res.body).toHaveLength(6);
      expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(byId.get(2)?.error?.code).toBe(-32600);
      expect((byId.get(3)?.result as { tools: unknown[] }).tools).toHaveLength(6);
      expect(byId.get(4)?.error?.code).toBe(-32600);
      expect(byId.get(5)?.error?.code).toBe(-32601);
      const page = byId.get(6)?.result as unknown as ToolResult;
      expect(page.isError).toBeUndefined();
      expect(page.structuredContent).toMatchObject({ resource: 'campaigns', count: 3 });
    },
  );

  it('a tool call with arguments that are not an object is an isError result in its place in a batch', async () => {
    const loose = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_campaigns', arguments: [5] },
    };
    const fine = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'list_campaigns', arguments: { limit: 1 } },
    };
    const res = await mcp.post<Array<RpcResponse<ToolResult>>>([loose, ping(2), fine], {
      protocolVersion: '2025-03-26',
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(errorOf(res.body[0]!.result!).error.code).toBe('invalid_parameter');
    expect(res.body[1]!.result).toEqual({});
    expect(res.body[2]!.result!.isError).toBeUndefined();
  });

  it('a batch of notifications only → 202 with an empty body', async () => {
    const res = await mcp.post(
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ],
      { protocolVersion: '2025-03-26' },
    );
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it.each([
    [
      'initialize inside a batch',
      [
        ping(1),
        { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-03-26' } },
      ],
      /initialize/,
    ],
    ['an empty batch', [], /empty/],
    ['duplicate ids', [ping(1), ping(1)], /unique/],
    ['101 messages', Array.from({ length: 101 }, (_, i) => ping(i + 1)), /at most 100/],
  ])('%s → 400 -32600', async (_, body, message) => {
    const res = await mcp.post<RpcResponse>(body, { protocolVersion: '2025-03-26' });
    expect(res.status).toBe(400);
    expectRpcError(res, -32600, message);
  });
});

describe('a batch that costs more than the whole budget', () => {
  it('is 400 -32600 saying to split it, not a 429 that could never pass', async () => {
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const small = new McpHttp(new ApiClient(stack.gateway.url), {
      key: plus.secret,
      protocolVersion: LATEST_VERSION,
    });
    const body = Array.from({ length: 61 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'ping',
    }));
    const res = await small.post<RpcResponse>(body, { protocolVersion: '2025-03-26' });
    expect(res.status).toBe(400);
    expectRpcError(res, -32600, /61 messages, more than the brand's 60 requests a minute/);
    // The refused POST itself counted one unit (every authenticated request does): 59 remain,
    // and a batch of 59 is answered in full.
    const fits = await small.post<RpcResponse[]>(body.slice(2), { protocolVersion: '2025-03-26' });
    expect(fits.status).toBe(200);
    expect(fits.body).toHaveLength(59);
    expect(fits.headers.get('ratelimit')).toMatch(/^"brand";r=0;/);
  });
});

describe('Origin allow-list', () => {
  it('with no allow-list configured, any Origin is 403 forbidden_origin', async () => {
    const res = await mcp.rpc('tools/list', undefined, { headers: { Origin: ALLOWED_ORIGIN } });
    expect(res.status).toBe(403);
    expect(rpcError(res)).toMatchObject({ code: -32000, data: { code: 'forbidden_origin' } });
    expect(res.body.result).toBeUndefined();
  });

  it('an allowed Origin works', async () => {
    for (const origin of [ALLOWED_ORIGIN, 'https://console.example.com']) {
      const res = await strictMcp.rpc<{ tools: unknown[] }>('tools/list', undefined, {
        headers: { Origin: origin },
      });
      expect(res.status).toBe(200);
      expect(res.body.result?.tools).toHaveLength(6);
    }
  });

  it.each([
    'https://evil.example',
    'http://app.example.com',
    'https://app.example.com.evil.test',
    'https://app.example.com:8443',
    'null',
  ])('Origin %s, not on the list, is 403', async (origin) => {
    const res = await strictMcp.rpc('tools/list', undefined, { headers: { Origin: origin } });
    expect(res.status).toBe(403);
    expect(rpcError(res).data?.code).toBe('forbidden_origin');
  });

  it('the Origin check comes before authentication', async () => {
    const res = await strictMcp.rpc('tools/list', undefined, {
      authorization: '',
      headers: { Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
  });

  it('a request without Origin (a server-side client) is not affected by the list', async () => {
    const res = await strictMcp.rpc('ping');
    expect(res.status).toBe(200);
  });
});

describe('transport-wide properties of every response in this file', () => {
  it('no Mcp-Session-Id, never HTML, never 5xx, every body JSON or empty (202)', () => {
    const fetched = [...mcp.responses, ...strictMcp.responses].map((r) => ({
      status: r.status,
      contentType: r.headers.get('content-type'),
      session: r.headers.get('mcp-session-id'),
      text: r.text,
    }));
    const viaNode = raw.map((r) => ({
      status: r.status,
      contentType: r.headers['content-type'] ?? null,
      session: r.headers['mcp-session-id'] ?? null,
      text: r.text,
    }));
    const all = [...fetched, ...viaNode];
    expect(all.length).toBeGreaterThan(80);
    expect(all.map((r) => r.status).filter((s) => s >= 500)).toEqual([]);
    expect(all.filter((r) => r.session !== null)).toEqual([]);
    for (const r of all) {
      if (r.status === 202) {
        expect(r.text).toBe('');
        continue;
      }
      expect(r.contentType).toMatch(/^application\/json/);
      expect(() => JSON.parse(r.text) as unknown).not.toThrow();
    }
  });
});
