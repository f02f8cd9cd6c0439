// The admin token as the real process reads it: refusals are usage errors that never print it,
// and no file, however large or endless, keeps brandctl from exiting.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const BIN = path.join(REPO_ROOT, 'cli/bin/brandctl.js');
const SECRET = 'Sup3rS3cretValue';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs brandctl with stdin closed, against a records address where nothing listens. */
function brandctl(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, '--records', '127.0.0.1:1', '--timeout', '2000', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ADMIN_TOKEN: '', ...env }, timeout: 20_000 },
      (err, stdout, stderr) => {
        if (err === null) return resolve({ code: 0, stdout, stderr });
        if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
        reject(new Error(`brandctl did not exit: ${err.message}`));
      },
    );
    child.stdin?.end();
  });
}

describe('brandctl admin token (the real process)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'brandctl-cred-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it.each([
    ['a control character in the file', ['--admin-token-file', file('ctl', `${SECRET}\x01\n`)], {}],
    ['a second line in the file', ['--admin-token-file', file('two', `${SECRET}\nx\n`)], {}],
    ['a tab in --token', ['--token', `${SECRET}\tb`], {}],
    ['a control character in ADMIN_TOKEN', [], { ADMIN_TOKEN: `${SECRET}\x01` }],
  ])('refuses %s with exit 2, never printing it', async (_, args, env) => {
    for (const json of [[], ['--json']]) {
      const r = await brandctl(env, 'brand', 'list', ...args, ...json);
      expect(r.code).toBe(2);
      expect(r.stderr + r.stdout).not.toContain(SECRET);
    }
  });

  it.each([
    ['an empty file', ['--admin-token-file', file('empty', '')]],
    ['standard input, closed', ['--admin-token-file', '-']],
    ['an empty --token', ['--token', '']],
  ])('refuses %s rather than use the checkout token', async (_, args) => {
    const r = await brandctl({}, 'brand', 'list', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is empty/);
  });

  it.each([
    ['a 1 MB file', file('big', 'a'.repeat(1024 * 1024))],
    ['/dev/zero', '/dev/zero'],
  ])('exits 2 at once on %s', async (_, p) => {
    const r = await brandctl({}, 'brand', 'list', '--admin-token-file', p);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/larger than 4096 bytes/);
  });
});
