import { request as httpRequest } from 'node:http';
import {
  makeBrandWithKey,
  makeRecords,
  scrapeMetric,
  startStack,
  waitFor,
  type Stack,
} from '@brand/testkit';

// The lean list route (gateway/src/http/leanListRoute.ts) and the MCP direct list call
// (gateway/src/mcp/directListCall.ts) answer the common requests without express's router or
// the MCP SDK server. Each must answer exactly as the general path does: here the same
// request is sent once in the form the fast path takes and once in a form only the general
// path takes (a trailing slash; `_meta` in MCP params), and the answers are compared whole
// (status, every header in order, body), with the per-request values (request id, date,
// rate-limit counter) set aside. Also: the access log line and the route's metrics.

let stack: Stack;
let key: string;
let brandId: string;

interface RawAnswer {
  status: number;
  headers: string[];
  body: string;
}

/** One request on its own connection; headers as sent (raw, in order). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(stack.gateway.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.rawHeaders, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer without what differs per request by design. */
function comparable(a: RawAnswer): RawAnswer {
  const VARYING = new Set(['x-request-id', 'date', 'ratelimit']);
  const headers: string[] = [];
  for (let i = 0; i < a.headers.length; i += 2) {
    const name = a.headers[i]!;
    headers.push(name, VARYING.has(name.toLowerCase()) ? '*' : a.headers[i + 1]!);
  }
  return { status: a.status, headers, body: a.body.replace(/req_[0-9A-Za-z]+/g, 'req_*') };
}

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = seeded.secret;
  brandId = seeded.brand.id;
  await makeRecords(stack.db.pool, brandId, 'submissions', 5);
  // the lean path takes only keys the gateway already knows: the first request looks it up
  expect((await send('GET', '/api/v1/links', { authorization: `Bearer ${key}` })).status).toBe(200);
});

afterAll(() => stack?.close());

/** How many requests of `route` and `method` answered 200, by the gateway's own metric. */
function routeCount(route: string, method: string): Promise<number> {
  // the labels in any order
  const label = (name: string, value: string): string =>
    `(?=[^}]*${name}="${value.replace(/[/:.]/g, (c) => `\\${c}`)}")`;
  return scrapeMetric(
    stack.gateway.opsUrl,
    new RegExp(
      `^http_request_duration_seconds_count\\{${label('route', route)}${label('method', method)}${label('status', '200')}`,
    ),
  );
}

describe('the lean list route answers as express does', () => {
  it.each([
    ['a page with a next cursor', 'submissions?limit=2'],
    ['the default limit', 'submissions'],
    ['an empty page', 'deposits?limit=5'],
  ])('%s', async (_label, target) => {
    const [path, query] = target.split('?');
    const auth = { authorization: `Bearer ${key}` };
    const lean = await send('GET', `/api/v1/${path}${query ? `?${query}` : ''}`, auth);
    const general = await send('GET', `/api/v1/${path}/${query ? `?${query}` : ''}`, auth);
    expect(lean.status).toBe(200);
    // cursors and rows are the same (nothing was written between the two requests)
    expect(comparable(lean)).toEqual(comparable(general));
    expect(lean.headers).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit']));
  });

  it('a request id the caller sent is echoed, as express echoes it', async () => {
    const res = await send('GET', '/api/v1/submissions?limit=1', {
      authorization: `Bearer ${key}`,
      'x-request-id': 'lean-path-request-0001',
    });
    expect(res.headers[res.headers.indexOf('X-Request-Id') + 1]).toBe('lean-path-request-0001');
  });

  it('writes the access line and the route metric like the express route', async () => {
    const requestId = 'lean-path-request-0002';
    await send('GET', '/api/v1/submissions?limit=1', {
      authorization: `Bearer ${key}`,
      'x-request-id': requestId,
    });
    const line = await waitFor(
      () => stack.gateway.logs().find((l) => l.includes(`"request_id":"${requestId}"`)),
      { what: 'the access line of the lean request' },
    );
    expect(JSON.parse(line)).toMatchObject({
      msg: 'request completed',
      method: 'GET',
      path: '/api/v1/submissions',
      status: 200,
      brand_id: brandId,
    });
    expect(await routeCount('/api/v1/:resource', 'GET')).toBeGreaterThanOrEqual(4);
  });
});

describe('the MCP direct list call answers as the SDK server does', () => {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  };
  const call = (id: unknown, args: unknown, extra: object = {}) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list_submissions', arguments: args, ...extra },
    });

  it.each([
    ['a page', 1, { limit: 2 }],
    ['a string id and the default limit', 'abc', {}],
    ['a refusal (isError result)', 3, { limit: 0 }],
    ['an unknown argument', 4, { nope: true }],
  ])('%s', async (_label, id, args) => {
    const auth = { ...headers, authorization: `Bearer ${key}` };
    const direct = await send('POST', '/api/mcp', auth, call(id, args));
    // `_meta` in params is a form only the SDK path takes; an empty one changes no answer
    const sdk = await send('POST', '/api/mcp', auth, call(id, args, { _meta: {} }));
    expect(direct.status).toBe(200);
    expect(JSON.parse(direct.body)).toMatchObject({ jsonrpc: '2.0', id });
    expect(comparable(direct)).toEqual(comparable(sdk));
  });
});

describe('the lean MCP route answers as express does, and hands it everything else', () => {
  const auth = (): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    authorization: `Bearer ${key}`,
  });
  const listCall = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'list_submissions', arguments: { limit: 2 } },
  });

  // `/api/mcp?` is the same route to express, but a form the lean route never takes
  it.each([
    ['a direct list call', listCall],
    ['a refused direct list call', listCall.replace('"limit":2', '"limit":"x"')],
    ['a body that is not JSON (read by the lean route, answered by express)', '{"jsonrpc":'],
    ['a batch', `[${listCall}]`],
    ['another method', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ['an invalid envelope', '{"jsonrpc":"1.0","id":1,"method":"tools/call"}'],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
  ])('%s', async (_label, body) => {
    const lean = await send('POST', '/api/mcp', auth(), body);
    const general = await send('POST', '/api/mcp?', auth(), body);
    expect(comparable(lean)).toEqual(comparable(general));
  });

  it('writes the access line and the route metric like the express route', async () => {
    const requestId = 'lean-mcp-request-0001';
    const res = await send('POST', '/api/mcp', { ...auth(), 'x-request-id': requestId }, listCall);
    expect(res.status).toBe(200);
    const line = await waitFor(
      () => stack.gateway.logs().find((l) => l.includes(`"request_id":"${requestId}"`)),
      { what: 'the access line of the lean MCP request' },
    );
    expect(JSON.parse(line)).toMatchObject({
      msg: 'request completed',
      method: 'POST',
      path: '/api/mcp',
      status: 200,
      brand_id: brandId,
    });
    await waitFor(async () => (await routeCount('/api/mcp', 'POST')) >= 1, {
      what: 'the MCP route metric',
    });
  });
});
