import { connect } from 'node:net';
import {
  makeBrandWithKey,
  makeRecords,
  startStack,
  type BrandWithKey,
  type Stack,
} from '@brand/testkit';
import { rawRequest } from '../support/commonAuthTests';

// Issue 7: one regression test per defect the hostile probe found (defect 1, the internal
// credential, is services/records/test/integration/callerAuth.test.ts; defect 5 runs in
// every route's shared suite, auth.common.test.ts).

let stack: Stack;
let brand: BrandWithKey;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '5',
      KEY_CACHE_TTL_MS: '300',
      BODY_TIMEOUT_MS: '2000',
    },
  });
  brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
  await makeRecords(stack.db.pool, brand.brand.id, 'submissions', 3);
});
afterAll(() => stack?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.gateway.url}${path}`, {
    headers: { Authorization: `Bearer ${brand.secret}`, ...headers },
  });

const mcp = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack.gateway.url}/api/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${brand.secret}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });

describe('defect 3: a valid RFC 3339 offset PostgreSQL refuses', () => {
  const since = '2026-11-22T10:00:00+16:00';

  it('is answered over REST', async () => {
    const res = await get(`/api/v1/submissions?since=${encodeURIComponent(since)}`);
    expect(res.status).toBe(200);
  });

  it('is answered over MCP', async () => {
    const res = await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_submissions', arguments: { since } },
    });
    const body = (await res.json()) as { result: { isError?: boolean } };
    expect(res.status).toBe(200);
    expect(body.result.isError).toBeUndefined();
  });
});

describe('defect 4: a verified key is not locked out by its neighbours', () => {
  it('keeps working after its cache entry expires while guesses from its address get 429', async () => {
    expect((await get('/api/v1/campaigns')).status).toBe(200);
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        get('/api/v1/campaigns', {
          Authorization: `Bearer bk_live_${String(i).padStart(40, 'g')}`,
        }),
      ),
    );
    const statuses = guesses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
    await new Promise((r) => setTimeout(r, 600)); // past KEY_CACHE_TTL_MS
    expect((await get('/api/v1/campaigns')).status).toBe(200);
    const another = await get('/api/v1/campaigns', {
      Authorization: `Bearer bk_live_${'h'.repeat(40)}`,
    });
    expect(another.status).toBe(429);
  });
});

describe('defect 6: response headers and echoed input', () => {
  it('authenticated answers and errors carry no-store and nosniff', async () => {
    for (const res of [await get('/api/v1/campaigns'), await get('/api/v1/nope')]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('markup in a path is quoted and escaped, never echoed raw', async () => {
    const res = await get('/api/v1/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    const text = await res.text();
    expect(res.status).toBe(404);
    expect(text).not.toContain('<script>');
    expect(text).toContain('\\u003cscript');
  });

  it('14 KB of unknown parameter names make a small error body', async () => {
    // (Node refuses request heads over 16 KB with 431 before any of our code runs)
    const query = Array.from({ length: 650 }, (_, i) => `p${i}${'x'.repeat(15)}=1`).join('&');
    const res = await get(`/api/v1/campaigns?${query}`);
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text.length).toBeLessThan(4_000);
  });
});

describe('defect 7: operational endpoints stay off the public listener', () => {
  it('/metrics is not served on the API port, and is on the internal one', async () => {
    expect((await get('/metrics')).status).toBe(404);
    const internal = await fetch(`${stack.gateway.opsUrl}/metrics`);
    expect(internal.status).toBe(200);
    expect(await internal.text()).toContain('http_request_duration_seconds');
  });

  it('the probes are not on the API port either (issue 47), only on the internal one', async () => {
    for (const path of ['/readyz', '/healthz']) {
      expect((await get(path)).status).toBe(404);
      expect((await fetch(`${stack.gateway.opsUrl}${path}`)).status).toBe(200);
    }
  });
});

/** Opens a raw connection, writes `head`, then trickles `body` a byte every `everyMs`. */
function slowRequest(
  head: string,
  body: string,
  everyMs: number,
): Promise<{ response: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(stack.gateway.port, '127.0.0.1');
    let response = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < body.length && !socket.destroyed) socket.write(body[i++]!);
    }, everyMs);
    socket.on('data', (d) => (response += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ response, closedAfterMs: Date.now() - started });
    });
    socket.on('error', () => undefined);
    socket.write(head);
  });
}

describe('defect 8: slow bodies cannot hold connections', () => {
  it('a body sent a byte a second is cut off at the body deadline (408, closed)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const head =
      `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${brand.secret}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { response, closedAfterMs } = await slowRequest(head, body, 1_000);
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(6_000);
  });

  it('a request refused before its body was read is answered and closed, with no stray 408', async () => {
    const head =
      'POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      'Content-Length: 1000\r\n\r\n';
    const { response, closedAfterMs } = await slowRequest(head, 'x'.repeat(1000), 1_000);
    // 401, or 429 once this address has spent its budget: refused either way, unread
    expect(response).toMatch(/^HTTP\/1\.1 (401|429)/);
    expect(response).toMatch(/\r\nConnection: close\r\n/i);
    expect(response).not.toMatch(/408/);
    expect(closedAfterMs).toBeLessThan(1_500);
  });
});

describe('defect 9: small MCP edges', () => {
  it('a batch with a tools/call and its cancellation is answered at once', async () => {
    const started = Date.now();
    const res = await mcp(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_submissions', arguments: {} },
        },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ],
      { 'MCP-Protocol-Version': '2025-03-26' },
    );
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('an unsafe or unbounded X-Request-Id is replaced by a minted one', async () => {
    for (const id of ['a'.repeat(500), 'abc<script>def', 'line\tbreak-1234']) {
      const res = await get('/api/v1/campaigns', { 'X-Request-Id': id });
      expect(res.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{20}$/);
    }
    const kept = await get('/api/v1/campaigns', { 'X-Request-Id': 'trace-0123456789' });
    expect(kept.headers.get('x-request-id')).toBe('trace-0123456789');
  });
});

describe('the raw request helper', () => {
  it('reaches the gateway (sanity for the raw-socket tests above)', async () => {
    const res = await rawRequest(`${stack.gateway.url}/api/v1/submissions`, 'GET', [
      'Host',
      `127.0.0.1:${stack.gateway.port}`,
      'Authorization',
      `Bearer ${brand.secret}`,
    ]);
    expect(res.status).toBe(200);
  });
});
