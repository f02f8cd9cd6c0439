import {
  makeBrandWithKey,
  makeRecords,
  scrapeMetric,
  startStack,
  waitFor,
  type Stack,
  headerOf,
  sendRaw,
  type RawAnswer,
} from '@brand/testkit';
import { comparable } from '../support/rawExchange';

// Every list request (REST GET /api/v1/{resource}, the MCP POST) is answered by one lean
// implementation on plain node:http (endpoints/*/leanPath.ts). Here: the exact headers of its
// answers (200, HEAD, 304, 400, 401, 404, 405, 429), a key's first request answered as a cached
// key's, the forms of one request answered alike (a trailing slash; a list tool call answered
// directly or by the SDK server when `_meta` makes it a form only the SDK takes), and the access
// line and route metric of lean answers.

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
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = seeded.secret;
  brandId = seeded.brand.id;
  await makeRecords(stack.db.pool, brandId, 'submissions', 5);
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

/** The header names of an answer, in the order they were sent. */
const names = (a: RawAnswer): string[] => a.headers.filter((_, i) => i % 2 === 0);

const COMMON = ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options'];
const BRAND_BUDGET = ['RateLimit-Policy', 'RateLimit'];
const JSON_BODY = ['Content-Type', 'Content-Length'];
const CLOSE = ['Date', 'Connection'];

describe('the lean list path: exact answers', () => {
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${key}` });

  it("answers a key's first request (not yet cached) as every later one", async () => {
    const fresh = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const first = await send('GET', '/api/v1/links?limit=1', {
      authorization: `Bearer ${fresh.secret}`,
    });
    const second = await send('GET', '/api/v1/links?limit=1', {
      authorization: `Bearer ${fresh.secret}`,
    });
    expect(first.status).toBe(200);
    expect(comparable(first)).toEqual(comparable(second));
  });

  it('200, HEAD and 304 carry exactly these headers', async () => {
    const page = await send('GET', '/api/v1/submissions?limit=2', auth());
    expect(names(page)).toEqual([...COMMON, ...BRAND_BUDGET, 'ETag', ...JSON_BODY, ...CLOSE]);
    const head = await send('HEAD', '/api/v1/submissions?limit=2', auth());
    expect(head.status).toBe(200);
    expect(names(head)).toEqual(names(page));
    expect(head.body).toBe('');
    const etag = headerOf(page, 'etag')!;
    const poll = await send('GET', '/api/v1/submissions?limit=2', {
      ...auth(),
      'if-none-match': etag,
    });
    expect(poll.status).toBe(304);
    expect(names(poll)).toEqual([...COMMON, ...BRAND_BUDGET, 'ETag', ...CLOSE]);
    expect(poll.body).toBe('');
  });

  it.each([
    ['400 invalid_parameter', '/api/v1/submissions?limit=0', 400, 'invalid_parameter'],
    ['400 invalid_cursor', '/api/v1/submissions?cursor=x', 400, 'invalid_cursor'],
    ['404 unknown_resource', '/api/v1/nope', 404, 'unknown_resource'],
  ])('%s carries exactly the error headers', async (_label, path, status, code) => {
    const res = await send('GET', path, auth());
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code } });
    expect(names(res)).toEqual([...COMMON, ...BRAND_BUDGET, ...JSON_BODY, ...CLOSE]);
  });

  it('401 (address budget, WWW-Authenticate) and 405 (Allow, before admission)', async () => {
    const anonymous = await send('GET', '/api/v1/submissions', {});
    expect(anonymous.status).toBe(401);
    expect(names(anonymous)).toEqual([
      ...COMMON,
      ...BRAND_BUDGET,
      'WWW-Authenticate',
      ...JSON_BODY,
      ...CLOSE,
    ]);
    const post = await send('POST', '/api/v1/submissions', auth(), '{}');
    expect(post.status).toBe(405);
    expect(headerOf(post, 'allow')).toBe('GET, HEAD');
    // its body unread, the connection closes (the prelude), so Connection precedes Date
    expect(names(post)).toEqual([...COMMON, 'Allow', ...JSON_BODY, 'Connection', 'Date']);
  });
});

describe('the lean list path answers every form of a request alike', () => {
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

  it('a request id the caller sent is echoed', async () => {
    const res = await send('GET', '/api/v1/submissions?limit=1', {
      authorization: `Bearer ${key}`,
      'x-request-id': 'lean-path-request-0001',
    });
    expect(res.headers[res.headers.indexOf('X-Request-Id') + 1]).toBe('lean-path-request-0001');
  });

  it('writes the access line and the route metric', async () => {
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

describe('a list tool call is answered alike, directly or by the SDK server', () => {
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

describe('the MCP lean path', () => {
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

  it('GET and DELETE are 405 with Allow: POST and a JSON-RPC body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await send(method, '/api/mcp', auth());
      expect(res.status).toBe(405);
      expect(headerOf(res, 'allow')).toBe('POST');
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null });
    }
  });

  it('writes the access line and the route metric', async () => {
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
