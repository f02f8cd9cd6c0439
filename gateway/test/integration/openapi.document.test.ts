import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
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
