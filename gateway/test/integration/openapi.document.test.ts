import { execFile } from 'node:child_process';
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
