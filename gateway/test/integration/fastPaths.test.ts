import {
  makeBrandWithKey,
  makeRecords,
  scrapeMetric,
  startStack,
  waitFor,
  type Stack,
} from '@brand/testkit';
import { comparable, sendRaw, type RawAnswer } from '../support/rawExchange';

// The fast paths (gateway/src/endpoints/v1ResourcesList/fastPath.ts, and the MCP direct list
// call of gateway/src/endpoints/mcp/) answer the common requests without express's router or
// the MCP SDK server. Each must answer exactly as the general path does: here the same
// request is sent to one gateway once in the form the fast path takes and once in a form only
// the general path takes (a trailing slash; `_meta` in MCP params), and the answers are
// compared whole (status, every header in order, body), with the per-request values (request
// id, date, rate-limit counter) set aside. Also: the access log line and the route's metrics.
// fastPaths.comparison holds them to a gateway without fast paths for every outcome.

let stack: Stack;
let key: string;
let brandId: string;

const send = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> => sendRaw(stack.gateway.url, method, path, headers, body);

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000', GATEWAY_FAST_PATHS: 'on' },
  });
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = seeded.secret;
  brandId = seeded.brand.id;
  await makeRecords(stack.db.pool, brandId, 'submissions', 5);
  // the fast paths take only keys the gateway already knows: the first request looks it up
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

describe('the list fast path answers as express does', () => {
  it.each([
    ['a page with a next cursor', 'submissions?limit=2'],
    ['the default limit', 'submissions'],
    ['an empty page', 'deposits?limit=5'],
  ])('%s', async (_label, target) => {
    const [path, query] = target.split('?');
    const auth = { authorization: `Bearer ${key}` };
    const fast = await send('GET', `/api/v1/${path}${query ? `?${query}` : ''}`, auth);
    const general = await send('GET', `/api/v1/${path}/${query ? `?${query}` : ''}`, auth);
    expect(fast.status).toBe(200);
    // cursors and rows are the same (nothing was written between the two requests)
    expect(comparable(fast)).toEqual(comparable(general));
    expect(fast.headers).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit']));
  });

  it('a request id the caller sent is echoed, as express echoes it', async () => {
    const res = await send('GET', '/api/v1/submissions?limit=1', {
      authorization: `Bearer ${key}`,
      'x-request-id': 'fast-path-request-0001',
    });
    expect(res.headers[res.headers.indexOf('X-Request-Id') + 1]).toBe('fast-path-request-0001');
  });

  it('writes the access line and the route metric like the express route', async () => {
    const requestId = 'fast-path-request-0002';
    await send('GET', '/api/v1/submissions?limit=1', {
      authorization: `Bearer ${key}`,
      'x-request-id': requestId,
    });
    const line = await waitFor(
      () => stack.gateway.logs().find((l) => l.includes(`"request_id":"${requestId}"`)),
      { what: 'the access line of the fast request' },
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

describe('the MCP fast path answers as express does, and hands it everything else', () => {
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

  // `/api/mcp?` is the same route to express, but a form the fast path never takes
  it.each([
    ['a direct list call', listCall],
    ['a refused direct list call', listCall.replace('"limit":2', '"limit":"x"')],
    ['a body that is not JSON (read by the fast path, answered by express)', '{"jsonrpc":'],
    ['a batch', `[${listCall}]`],
    ['another method', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ['an invalid envelope', '{"jsonrpc":"1.0","id":1,"method":"tools/call"}'],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
  ])('%s', async (_label, body) => {
    const fast = await send('POST', '/api/mcp', auth(), body);
    const general = await send('POST', '/api/mcp?', auth(), body);
    expect(comparable(fast)).toEqual(comparable(general));
  });

  it('writes the access line and the route metric like the express route', async () => {
    const requestId = 'fast-mcp-request-0001';
    const res = await send('POST', '/api/mcp', { ...auth(), 'x-request-id': requestId }, listCall);
    expect(res.status).toBe(200);
    const line = await waitFor(
      () => stack.gateway.logs().find((l) => l.includes(`"request_id":"${requestId}"`)),
      { what: 'the access line of the fast MCP request' },
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
