import { makeBrandWithKey, makeRecords, startStack, type Stack } from '@brand/testkit';
import { LATEST_VERSION, MCP_PATH, rawRequest, type RawResponse } from '../support/mcpHttp';

// CORS on POST /api/mcp for the origins MCP_ALLOWED_ORIGINS admits (and only those): a browser
// tool such as the MCP Inspector on http://localhost:6274 must get its preflight answered and
// be allowed to read every answer, errors (401, 429) included, with the headers it needs
// exposed. An origin off the list gets no CORS header at all, its preflight the 403 its POST
// gets. (Before, the preflight was 405 and no response carried Access-Control-Allow-Origin, so
// a browser withheld every answer from an allowed origin.)

const INSPECTOR = 'http://localhost:6274';
const EXACT = 'https://app.example.com';
const REFUSED = 'https://evil.example';

let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000',
      MCP_ALLOWED_ORIGINS: `loopback, ${EXACT}`,
    },
  });
  const seeded = await makeBrandWithKey(stack.admin, { tier: 'plus' });
  key = seeded.secret;
  await makeRecords(stack.db.pool, seeded.brand.id, 'campaigns', 2);
});

afterAll(() => stack?.close());

const send = (method: string, headers: Record<string, string>, body?: string) =>
  rawRequest(stack.gateway.url, { method, path: MCP_PATH, headers, body });

const preflight = (origin: string, requestHeaders = 'authorization,content-type') =>
  send('OPTIONS', {
    Origin: origin,
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': requestHeaders,
  });

const rpcHeaders = (origin: string, bearer = key) => ({
  Origin: origin,
  Authorization: `Bearer ${bearer}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': LATEST_VERSION,
});

const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

const listOf = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function expectCorsAnswer(res: RawResponse, origin: string): void {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(listOf(res.headers.vary)).toContain('origin');
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  const exposed = listOf(res.headers['access-control-expose-headers']);
  for (const h of [
    'x-request-id',
    'ratelimit',
    'ratelimit-policy',
    'retry-after',
    'www-authenticate',
  ]) {
    expect(exposed).toContain(h);
  }
}

function expectNoCors(res: RawResponse): void {
  expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
}

describe('preflight (OPTIONS /api/mcp)', () => {
  it.each([INSPECTOR, 'http://127.0.0.1:5173', EXACT])(
    'from an allowed origin %s → 204 with the CORS grant',
    async (origin) => {
      const res = await preflight(
        origin,
        'authorization,content-type,accept,mcp-protocol-version,mcp-session-id,last-event-id',
      );
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(listOf(res.headers.vary)).toContain('origin');
      expect(listOf(res.headers['access-control-allow-methods'])).toEqual(
        expect.arrayContaining(['post']),
      );
      expect(listOf(res.headers['access-control-allow-headers'])).toEqual(
        expect.arrayContaining([
          'authorization',
          'content-type',
          'accept',
          'mcp-protocol-version',
          'mcp-session-id',
          'last-event-id',
        ]),
      );
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    },
  );

  it('from a refused origin → 403 forbidden_origin as its POST, and no CORS header', async () => {
    const res = await preflight(REFUSED);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { data: { code: 'forbidden_origin' } } });
    expectNoCors(res);
  });

  it('without an Origin (not a preflight) is 405 as before', async () => {
    const res = await send('OPTIONS', {});
    expect(res.status).toBe(405);
    expectNoCors(res);
  });
});

describe('actual responses to an allowed origin carry the grant', () => {
  it('a POST with a key → 200 with Access-Control-Allow-Origin and the exposed headers', async () => {
    const res = await send('POST', rpcHeaders(INSPECTOR), listTools);
    expect(res.status).toBe(200);
    expect((res.body as { result?: { tools?: unknown[] } }).result?.tools?.length).toBeGreaterThan(
      0,
    );
    expectCorsAnswer(res, INSPECTOR);
  });

  it('a POST with a wrong key → 401, readable by the page', async () => {
    const res = await send('POST', rpcHeaders(EXACT, 'bk_live_notakey'), listTools);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBeDefined();
    expectCorsAnswer(res, EXACT);
  });

  it('a GET → 405, readable by the page (the SDK client reads it)', async () => {
    const res = await send('GET', { Origin: INSPECTOR, Accept: 'text/event-stream' });
    expect(res.status).toBe(405);
    expectCorsAnswer(res, INSPECTOR);
  });

  it('over the budget → 429 with Retry-After exposed', async () => {
    const { secret } = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    // Plus is 60 a minute: a 2025-03-26 batch of 60 pings spends it, the next POST is 429.
    const batch = JSON.stringify(
      Array.from({ length: 60 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })),
    );
    const spent = await send(
      'POST',
      { ...rpcHeaders(INSPECTOR, secret), 'MCP-Protocol-Version': '2025-03-26' },
      batch,
    );
    expect(spent.status).toBe(200);
    const res = await send('POST', rpcHeaders(INSPECTOR, secret), listTools);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    expectCorsAnswer(res, INSPECTOR);
  });
});

describe('a refused origin gets no CORS header', () => {
  it('its POST is 403 forbidden_origin without Access-Control-*', async () => {
    const res = await send('POST', rpcHeaders(REFUSED), listTools);
    expect(res.status).toBe(403);
    expectNoCors(res);
  });

  it('a request without Origin (a server) gets none either', async () => {
    const { Origin: _omit, ...headers } = rpcHeaders(INSPECTOR);
    const res = await send('POST', headers, listTools);
    expect(res.status).toBe(200);
    expectNoCors(res);
  });
});
