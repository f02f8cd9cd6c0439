// The benchmark's scripts (scripts/bench) load the services' built modules by path, and only a
// few of them run in the test command's bench smoke: pageHop.mjs and the lean split's front
// stopped at start for days after a module they required moved (grpc/ → grpcClient/), and
// nothing said so. Here every script parses, and every built module it names by path exists
// after the build the integration run starts from.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

const BENCH = path.join(REPO_ROOT, 'scripts/bench');

function scriptsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return scriptsUnder(full);
    return /\.(mjs|cjs|js)$/.test(entry.name) ? [full] : [];
  });
}

/** The built modules a script names: relative to it ('../../x/dist/y.js') or to the repository. */
function builtModulesOf(script: string): string[] {
  const text = readFileSync(script, 'utf8');
  return [...text.matchAll(/['"`]((?:\.\.?\/)*[\w./-]*\/dist\/[\w./-]+\.js)['"`]/g)].map(
    ([, name]) =>
      name!.startsWith('.')
        ? path.resolve(path.dirname(script), name!)
        : path.join(REPO_ROOT, name!),
  );
}

const scripts = scriptsUnder(BENCH);

it('finds the scripts and the modules they name', () => {
  expect(scripts.length).toBeGreaterThan(20);
  expect(scripts.flatMap(builtModulesOf).length).toBeGreaterThan(10);
});

it.each(scripts.map((s) => [path.relative(REPO_ROOT, s)]))('%s parses', (relative) => {
  const run = spawnSync(process.execPath, ['--check', path.join(REPO_ROOT, relative)], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
});

it.each(scripts.map((s) => [path.relative(REPO_ROOT, s)]))(
  '%s names only built modules that exist',
  (relative) => {
    const missing = builtModulesOf(path.join(REPO_ROOT, relative)).filter((m) => !existsSync(m));
    expect(missing.map((m) => path.relative(REPO_ROOT, m))).toEqual([]);
  },
);
