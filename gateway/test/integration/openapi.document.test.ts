import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { REPO_ROOT, startStack, type Stack } from '@brand/testkit';
import { OpenApiValidator } from '../support/openApiValidator';

const run = promisify(execFile);

let stack: Stack;
let served: string;

beforeAll(async () => {
  stack = await startStack();
  const res = await fetch(`${stack.gateway.url}/openapi/service.yaml`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
  served = await res.text();
});

afterAll(() => stack?.close());

describe('GET /openapi/service.yaml (docs/contract.md#openapi-document)', () => {
  it('is public and identical to the committed gateway/openapi/service.yaml', async () => {
    const committed = await readFile(path.join(REPO_ROOT, 'gateway/openapi/service.yaml'), 'utf8');
    expect(served).toBe(committed);
  });

  it('lints clean with Redocly (recommended rules)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'openapi-'));
    const file = path.join(dir, 'service.yaml');
    await writeFile(file, served);
    const { stdout, stderr } = await run(
      path.join(REPO_ROOT, 'node_modules/.bin/redocly'),
      ['lint', file, '--format=stylish', '--config', path.join(REPO_ROOT, 'redocly.yaml')],
      { cwd: dir },
    ).catch((err: { stdout: string; stderr: string }) => {
      throw new Error(`redocly lint failed:\n${err.stdout}\n${err.stderr}`);
    });
    // Stylish lines look like "  2118:7  warning  operation-4xx-response  ...". Outside the repo's
    // ignore file, only the three probe operations may be reported, and only as that warning.
    const problems = `${stdout}${stderr}`
      .split('\n')
      .filter((l) => /^\s*\d+:\d+\s+(error|warning)\s/.test(l));
    expect(problems.filter((l) => !/warning\s+operation-4xx-response/.test(l))).toEqual([]);
    expect(problems.length).toBeLessThanOrEqual(3);
  });

  it('documents the six resources, the MCP endpoint and the description file', () => {
    for (const p of [
      '/api/v1/campaigns',
      '/api/v1/submissions',
      '/api/v1/payouts',
      '/api/v1/deposits',
      '/api/v1/conversions',
      '/api/v1/links',
      '/api/mcp',
      '/openapi/service.yaml',
    ]) {
      expect(served).toContain(`\n  ${p}:\n`);
    }
  });

  it('the response validator rejects bodies that break the document (it is not vacuous)', () => {
    const v = OpenApiValidator.fromYaml(served);
    const good = JSON.stringify({ resource: 'links', count: 0, data: [] });
    expect(v.check('GET', '/api/v1/links', 200, 'application/json', good)).toEqual([]);
    expect(
      v.check(
        'GET',
        '/api/v1/links',
        200,
        'application/json',
        JSON.stringify({ resource: 'links', data: [] }),
      ),
    ).not.toEqual([]);
    expect(
      v.check(
        'GET',
        '/api/v1/links',
        200,
        'application/json',
        JSON.stringify({ resource: 'campaigns', count: 0, data: [] }),
      ),
    ).not.toEqual([]);
    expect(v.check('GET', '/api/v1/links', 418, 'application/json', good)).not.toEqual([]);
    expect(
      v.check(
        'GET',
        '/api/v1/links',
        400,
        'application/json',
        JSON.stringify({ error: { code: 'nope', message: 'x', request_id: 'r' } }),
      ),
    ).not.toEqual([]);
    expect(
      v.check(
        'GET',
        '/api/v1/links',
        400,
        'application/json',
        JSON.stringify({ error: { code: 'invalid_cursor', message: 'x', request_id: 'r' } }),
      ),
    ).toEqual([]);
  });
});

// A hostile review (2026-11-30): the assistant endpoint's preflight answers and its 403
// forbidden_origin listed RateLimit and RateLimit-Policy, which they never carry: they are
// answered before the key is read and count toward no budget (docs/contract.md#rate-limits).
describe("the assistant endpoint's answers before the key is read", () => {
  type Answer = { headers?: Record<string, unknown>; description?: string };
  const answers = () =>
    (
      parse(served) as {
        paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
      }
    ).paths['/api/mcp']!;
  const rateLimitHeaders = (a: Answer | undefined) =>
    Object.keys(a?.headers ?? {}).filter((h) => /^ratelimit/i.test(h));
  const rateLimitSent = (res: Response) =>
    ['ratelimit', 'ratelimit-policy'].filter((h) => res.headers.has(h));

  it('the preflight (OPTIONS) lists no RateLimit header on any answer, as none is sent', async () => {
    const listed = answers().options!.responses;
    expect(Object.keys(listed).sort()).toEqual(['204', '403', '405']);
    for (const a of Object.values(listed)) {
      expect(rateLimitHeaders(a)).toEqual([]);
      expect(Object.keys(a?.headers ?? {})).toContain('X-Request-Id');
    }
    const refused = await fetch(`${stack.gateway.url}/api/mcp`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    const noPreflight = await fetch(`${stack.gateway.url}/api/mcp`, { method: 'OPTIONS' });
    for (const [res, status] of [
      [refused, 403],
      [noPreflight, 405],
    ] as const) {
      expect(res.status).toBe(status);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(rateLimitSent(res)).toEqual([]);
    }
  });

  it("the POST's 403 says forbidden_origin carries none (network_not_allowed does)", async () => {
    const forbidden = answers().post!.responses['403'];
    expect(forbidden?.description).toMatch(/`forbidden_origin`[^.]*no RateLimit/);
    const res = await fetch(`${stack.gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(403);
    expect(rateLimitSent(res)).toEqual([]);
  });
});

// The outside probe (2026-11-30): OPTIONS was 200 text/plain ("GET, HEAD", express's automatic
// answer) and POST, PUT, TRACE were 404 not_found, where every API read route answers 405.
describe('other methods on /openapi/service.yaml', () => {
  // node:http, not fetch: fetch refuses to send TRACE
  const send = (method: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${stack.gateway.url}/openapi/service.yaml`, { method }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        });
        req.on('error', reject);
        req.end();
      },
    );

  it.each(['OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'])(
    '%s is 405 method_not_allowed with Allow: GET, HEAD, as the read routes answer it',
    async (method) => {
      const res = await send(method);
      expect({
        status: res.status,
        allow: res.headers.allow,
        type: res.headers['content-type'],
      }).toEqual({
        status: 405,
        allow: 'GET, HEAD',
        type: expect.stringMatching(/^application\/json/) as unknown,
      });
      const body = JSON.parse(res.text) as { error?: { code?: string; request_id?: string } };
      expect(body.error?.code).toBe('method_not_allowed');
      expect(body.error?.request_id).toBe(res.headers['x-request-id']);
    },
  );

  it('HEAD is still answered like GET, without a body', async () => {
    const res = await fetch(`${stack.gateway.url}/openapi/service.yaml`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await res.text()).toBe('');
  });
});
