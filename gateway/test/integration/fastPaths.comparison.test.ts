import {
  makeBrandWithKey,
  makeRecords,
  scrapeMetric,
  startGateway,
  startStack,
  type GatewayProcess,
  type Stack,
  waitFor,
} from '@brand/testkit';
import { comparable, headerOf, sendRaw, type RawAnswer } from '../support/rawExchange';

// The fast paths (GET /api/v1/{resource} from a known key, a lone MCP list tools/call) must
// answer exactly as express does, for every outcome: success, 400, 401, 403, 404, 429 and 503,
// over REST and MCP. Two gateways share one stack (records, plans, Redis: the same keys and
// budgets): `fast` with GATEWAY_FAST_PATHS=on, `express` with it off, the reference. Each
// request goes to both and the answers are compared whole: status, every header in order
// with its value, the body byte for byte. Set aside, each explicitly: Date, X-Request-Id and
// request ids in bodies, RateLimit's numbers (comparable()), and the seconds to wait of a
// refusal (Retry-After, the message's "retry after N s", retry_after), which may differ by
// one between two requests a few milliseconds apart; they must be whole, positive and
// within one second of each other. The fast gateway's http_fast_path_answers_total shows
// which answers its fast paths gave, so a fast path that stopped taking its requests fails
// here too.

const ON = { GATEWAY_FAST_PATHS: 'on' };
const SETTINGS = {
  ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000',
  // keys stay known for the whole file, also once records is stopped (the 503 cases)
  KEY_CACHE_TTL_MS: '600000',
  MCP_ALLOWED_ORIGINS: 'https://console.example.test',
};

let stack: Stack;
let express: GatewayProcess;
let key: string;
let plusKey: string;
let freeKey: string;

beforeAll(async () => {
  stack = await startStack({ plans: true, gatewayEnv: { ...SETTINGS, ...ON } });
  express = await startGateway({
    recordsAddr: stack.records.address,
    plansAddr: stack.plans!.address,
    redisUrl: stack.redisUrl,
    redisKeyPrefix: stack.redisKeyPrefix,
    env: { ...SETTINGS, GATEWAY_FAST_PATHS: 'off' },
  });
  const enterprise = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  key = enterprise.secret;
  await makeRecords(stack.db.pool, enterprise.brand.id, 'submissions', 5);
  plusKey = (await makeBrandWithKey(stack.admin, { tier: 'plus' })).secret;
  const free = await makeBrandWithKey(stack.admin);
  await stack.admin.updateBrand({ brandId: free.brand.id, tier: 'free' });
  freeKey = free.secret;
  // fast paths take only keys their gateway already knows: the first request looks each up
  for (const gateway of [stack.gateway, express]) {
    for (const k of [key, plusKey, freeKey]) {
      await sendRaw(gateway.url, 'GET', '/api/v1/links?limit=1', bearer(k));
    }
  }
});

afterAll(() => stack?.close());

const bearer = (k: string): Record<string, string> => ({ authorization: `Bearer ${k}` });

/** The answers fast paths of the fast gateway gave so far, all routes. */
const fastAnswers = (gateway: GatewayProcess): Promise<number> =>
  scrapeMetric(gateway.opsUrl, /^http_fast_path_answers_total\{/);

/** The seconds a refusal says to wait, read from its headers and body, then set aside. */
function waits(a: RawAnswer): { answer: RawAnswer; seconds: number[] } {
  const seconds: number[] = [];
  const read = (digits: string): string => {
    seconds.push(Number(digits));
    return '*';
  };
  const headers = a.headers.map((v, i) =>
    i % 2 === 1 && a.headers[i - 1]!.toLowerCase() === 'retry-after' ? read(v) : v,
  );
  const body = a.body
    .replace(/retry after (\d+) s/g, (_m, d: string) => `retry after ${read(d)} s`)
    .replace(/\\?"retry_after\\?":(\d+)/g, (m, d: string) => m.replace(d, read(d)));
  return { answer: { ...a, headers, body }, seconds };
}

/**
 * Sends one request to both gateways and expects the same answer; `fastPath` says whether the
 * fast gateway's fast path answers it (else express does, on both). Returns the answer.
 */
async function expectSameAnswer(
  request: { method: string; path: string; headers: Record<string, string> | string[] },
  body: string | undefined,
  fastPath: boolean,
): Promise<RawAnswer> {
  const before = await fastAnswers(stack.gateway);
  const fast = await sendRaw(
    stack.gateway.url,
    request.method,
    request.path,
    request.headers,
    body,
  );
  const reference = await sendRaw(express.url, request.method, request.path, request.headers, body);
  // counted when the response finishes, which the client may see first
  const expected = before + (fastPath ? 1 : 0);
  await waitFor(async () => (await fastAnswers(stack.gateway)) >= expected, {
    what: 'the fast path answer counted',
  });
  expect(await fastAnswers(stack.gateway)).toBe(expected);

  const a = waits(comparable(fast));
  const b = waits(comparable(reference));
  expect(a.seconds).toHaveLength(b.seconds.length);
  a.seconds.forEach((s, i) => {
    expect(Number.isInteger(s) && s >= 1).toBe(true);
    expect(Math.abs(s - b.seconds[i]!)).toBeLessThanOrEqual(1);
  });
  // a wait of 9 s and one of 10 s make bodies of different lengths; only then is the length
  // set aside (each must still be its own body's)
  if (a.seconds.some((s, i) => String(s).length !== String(b.seconds[i]).length)) {
    for (const [raw, side] of [
      [fast, a],
      [reference, b],
    ] as const) {
      expect(Number(headerOf(raw, 'content-length'))).toBe(Buffer.byteLength(raw.body));
      side.answer.headers = side.answer.headers.map((v, i) =>
        i % 2 === 1 && side.answer.headers[i - 1]!.toLowerCase() === 'content-length' ? '*' : v,
      );
    }
  }
  expect(a.answer).toEqual(b.answer);
  return fast;
}

const get = (path: string, headers: Record<string, string> | string[] = bearer(key)) => ({
  method: 'GET',
  path,
  headers,
});

describe('REST: GET /api/v1/{resource}', () => {
  it.each([
    ['200, a page with a next cursor', '/api/v1/submissions?limit=2', true],
    ['200, the default limit', '/api/v1/submissions', true],
    ['200, an empty page', '/api/v1/deposits?limit=5', true],
    ['200, a query only express reads', '/api/v1/submissions?limit=%32', false],
    ['400 invalid_parameter', '/api/v1/submissions?limit=0', false],
    ['400 invalid_cursor', '/api/v1/submissions?cursor=abc.def', false],
    ['404 unknown_resource', '/api/v1/nope', false],
  ])('%s', async (_label, path, fastPath) => {
    await expectSameAnswer(get(path), undefined, fastPath);
  });

  it('200 to If-None-Match: * (ignored: a list page always exists)', async () => {
    const headers = { ...bearer(key), 'if-none-match': '*' };
    const res = await expectSameAnswer(
      get('/api/v1/submissions?limit=1', headers),
      undefined,
      true,
    );
    expect(res.status).toBe(200);
    expect(headerOf(res, 'etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  describe('conditional requests (issue 18)', () => {
    /** The page's current ETag, once the brand's version is in Redis (a 304 proves it). */
    async function currentEtag(path: string): Promise<string> {
      const etag = headerOf(await sendRaw(express.url, 'GET', path, bearer(key)), 'etag')!;
      await waitFor(async () => {
        const res = await sendRaw(express.url, 'GET', path, {
          ...bearer(key),
          'if-none-match': etag,
        });
        return res.status === 304;
      });
      return etag;
    }

    it.each([
      ['304 to a matching If-None-Match', '/api/v1/submissions?limit=2', (e: string) => e, 304],
      ['304 to a weak tag in a list', '/api/v1/submissions', (e: string) => `"x", W/${e}`, 304],
      ['200 to another tag', '/api/v1/submissions?limit=2', () => '"other"', 200],
    ])('%s', async (_label, path, send, status) => {
      const etag = await currentEtag(path);
      const headers = { ...bearer(key), 'if-none-match': send(etag) };
      const res = await expectSameAnswer(get(path, headers), undefined, true);
      expect(res.status).toBe(status);
      expect(headerOf(res, 'etag')).toBe(etag);
    });

    it('304 to HEAD with a matching tag (express on both)', async () => {
      const path = '/api/v1/submissions?limit=2';
      const headers = { ...bearer(key), 'if-none-match': await currentEtag(path) };
      const res = await expectSameAnswer({ ...get(path, headers), method: 'HEAD' }, '', false);
      expect(res.status).toBe(304);
    });
  });

  it('200 to HEAD, headers only', async () => {
    const res = await expectSameAnswer(
      { ...get('/api/v1/submissions'), method: 'HEAD' },
      '',
      false,
    );
    expect(res.body).toBe('');
  });

  it.each([
    ['401 missing_key', {}],
    ['401 invalid_key', bearer(`bk_live_${'x'.repeat(40)}`)],
    ['401 a key of the other environment', bearer(`bk_test_${'x'.repeat(40)}`)],
  ])('%s', async (_label, headers) => {
    const res = await expectSameAnswer(get('/api/v1/links', headers), undefined, false);
    expect(res.status).toBe(401);
  });

  it('403 insufficient_permission: a brand below Plus', async () => {
    const res = await expectSameAnswer(get('/api/v1/links', bearer(freeKey)), undefined, false);
    expect(res.status).toBe(403);
  });

  it('400 malformed_request: two Authorization headers (the prelude)', async () => {
    const raw = ['Authorization', `Bearer ${key}`, 'Authorization', `Bearer ${plusKey}`];
    const res = await expectSameAnswer(get('/api/v1/links', raw), undefined, false);
    expect(res.status).toBe(400);
  });

  it('405 another method', async () => {
    await expectSameAnswer({ ...get('/api/v1/links'), method: 'DELETE' }, undefined, false);
  });
});

describe('MCP: POST /api/mcp', () => {
  const headers = (k = key, extra: Record<string, string> = {}): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...bearer(k),
    ...extra,
  });
  const post = (h = headers()) => ({ method: 'POST', path: '/api/mcp', headers: h });
  const listCall = (args: unknown, id: unknown = 7): string =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list_submissions', arguments: args },
    });

  it.each([
    ['200, a page', listCall({ limit: 2 }), true],
    ['200, a string id and the default limit', listCall({}, 'abc'), true],
    ['200 isError invalid_parameter (in-band)', listCall({ limit: 0 }), true],
    ['200 isError, an unknown argument (in-band)', listCall({ nope: 1 }), true],
    ['200, tools/list', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', false],
    ['202, a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}', false],
    ['400 -32700, a body that is not JSON (read by the fast path)', '{"jsonrpc":', false],
    ['400 -32600, an invalid envelope', '{"jsonrpc":"1.0","id":1,"method":"tools/call"}', false],
    ['400 -32600, a batch', `[${listCall({ limit: 1 })}]`, false],
  ])('%s', async (_label, body, fastPath) => {
    await expectSameAnswer(post(), body, fastPath);
  });

  it.each([
    [
      '400 an unsupported MCP-Protocol-Version',
      headers(key, { 'mcp-protocol-version': '1999-01-01' }),
    ],
    ['401 missing_key', { 'content-type': 'application/json' }],
    ['401 invalid_key', headers(`bk_live_${'y'.repeat(40)}`)],
    ['403 insufficient_permission: a brand below Plus', headers(freeKey)],
    ['403 forbidden_origin', headers(key, { origin: 'https://evil.example.test' })],
    ['415 another Content-Type', headers(key, { 'content-type': 'text/plain' })],
  ])('%s', async (_label, h) => {
    const res = await expectSameAnswer(post(h), listCall({ limit: 1 }), false);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it('413 a body over MCP_MAX_BODY_BYTES', async () => {
    const big = listCall({ limit: 1, pad: 'x'.repeat(300 * 1024) });
    await expectSameAnswer(post(), big, false);
  });

  it('404 next to it, 405 on it', async () => {
    await expectSameAnswer({ ...post(), path: '/api/mcp/more' }, listCall({}), false);
    await expectSameAnswer({ ...post(), method: 'GET' }, undefined, false);
  });
});

describe('a spent budget (429), REST and MCP', () => {
  beforeAll(async () => {
    // the Plus brand's 60 a minute, spent (both gateways share it through Redis)
    for (let i = 0; i < 60; i++) {
      const res = await sendRaw(stack.gateway.url, 'GET', '/api/v1/links?limit=1', bearer(plusKey));
      if (res.status === 429) break;
    }
  });

  it('429 rate_limited on the list, with Retry-After', async () => {
    const res = await expectSameAnswer(get('/api/v1/links', bearer(plusKey)), undefined, true);
    expect(res.status).toBe(429);
    expect(headerOf(res, 'retry-after')).toMatch(/^\d+$/);
  });

  it('429 from express too (a query only express reads)', async () => {
    const res = await expectSameAnswer(
      get('/api/v1/links?cursor=x', bearer(plusKey)),
      undefined,
      false,
    );
    expect(res.status).toBe(429);
  });

  it('200 isError rate_limited for a lone tools/call (in-band), with Retry-After', async () => {
    const h = {
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      ...bearer(plusKey),
    };
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'list_links', arguments: {} },
    });
    const res = await expectSameAnswer(
      { method: 'POST', path: '/api/mcp', headers: h },
      call,
      true,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('rate_limited');
    expect(headerOf(res, 'retry-after')).toMatch(/^\d+$/);
  });

  it('429 for another method', async () => {
    const h = { 'content-type': 'application/json', ...bearer(plusKey) };
    const res = await expectSameAnswer(
      { method: 'POST', path: '/api/mcp', headers: h },
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      false,
    );
    expect(res.status).toBe(429);
  });
});

describe('the records service down (503): run last, it stops records', () => {
  beforeAll(async () => {
    await stack.records.stop('SIGTERM', 5_000);
  });

  it('503 service_unavailable on the list, after admission', async () => {
    const res = await expectSameAnswer(get('/api/v1/submissions?limit=2'), undefined, true);
    expect(res.status).toBe(503);
  });

  it('503 for a key that must be looked up', async () => {
    const res = await expectSameAnswer(
      get('/api/v1/links', bearer(`bk_live_${'z'.repeat(40)}`)),
      undefined,
      false,
    );
    expect(res.status).toBe(503);
  });

  it('200 isError service_unavailable for a lone tools/call (in-band)', async () => {
    const h = { 'content-type': 'application/json', ...bearer(key) };
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'list_campaigns', arguments: { limit: 1 } },
    });
    const res = await expectSameAnswer(
      { method: 'POST', path: '/api/mcp', headers: h },
      call,
      true,
    );
    expect(res.body).toContain('service_unavailable');
  });

  it('503 over MCP for a key that must be looked up', async () => {
    const h = { 'content-type': 'application/json', ...bearer(`bk_live_${'q'.repeat(40)}`) };
    const res = await expectSameAnswer(
      { method: 'POST', path: '/api/mcp', headers: h },
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      false,
    );
    expect(res.status).toBe(503);
  });
});
