import { parse } from 'yaml';
import { makeBrandWithKey, startStack, type Stack } from '@brand/testkit';

// The public listener serves nothing without a key but the description file
// (docs/contract.md#openapi-document) and the assistant endpoint's CORS preflight, which serves no
// data. Liveness and readiness live on the internal listener, beside
// /metrics and the detailed readiness; any other public path without a key is 401 missing_key.

let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' } });
  key = (await makeBrandWithKey(stack.admin, { tier: 'plus' })).secret;
});
afterAll(() => stack?.close());

const KEYLESS = [
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['HEAD', '/readyz'],
  ['GET', '/metrics'],
  ['GET', '/'],
  ['GET', '/api'],
  ['GET', '/api/v2/campaigns'],
  ['GET', '/no/such/path'],
  ['DELETE', '/healthz'],
] as const;

describe('no keyless endpoint on the public listener but the description file', () => {
  it.each(KEYLESS)('%s %s without a key → 401 missing_key', async (method, path) => {
    const res = await fetch(`${stack.gateway.url}${path}`, { method });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    if (method === 'HEAD') return;
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('missing_key');
  });

  // The description file's path is public; a method it does not serve is 405 with Allow, as the
  // read routes answer one, before any key is asked for (b65ed76).
  it('POST /openapi/service.yaml without a key → 405 method_not_allowed, Allow: GET, HEAD', async () => {
    const res = await fetch(`${stack.gateway.url}/openapi/service.yaml`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'method_not_allowed',
    );
  });

  it('with a key, a path that is no endpoint is 404 not_found (the probes are not public)', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await fetch(`${stack.gateway.url}${path}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('an unknown key to an unknown path is 401 invalid_key, not a 404', async () => {
    const res = await fetch(`${stack.gateway.url}/readyz`, {
      headers: { Authorization: `Bearer bk_live_${'Z9'.repeat(16)}` },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_key');
  });

  it('the description file is served without a key, and describes no other keyless operation', async () => {
    const res = await fetch(`${stack.gateway.url}/openapi/service.yaml`);
    expect(res.status).toBe(200);
    const doc = parse(await res.text()) as {
      security?: unknown[];
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    expect(doc.paths['/healthz']).toBeUndefined();
    expect(doc.paths['/readyz']).toBeUndefined();
    const keyless = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => (op.security ?? doc.security ?? []).length === 0)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    // and the assistant endpoint's CORS preflight: a browser sends it without a key, and its
    // answer (204 to an allowed origin, else 403 or 405) carries headers only (mcp.cors.test.ts)
    expect(keyless).toEqual(['OPTIONS /api/mcp', 'GET /openapi/service.yaml']);
  });
});

describe('the probes on the internal listener', () => {
  it('GET /healthz: alive, no dependency checked', async () => {
    const res = await fetch(`${stack.gateway.opsUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz: ready, with the checks', async () => {
    const res = await fetch(`${stack.gateway.opsUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ready',
      checks: { records: 'ok', redis: 'ok', shutting_down: false },
    });
  });
});
