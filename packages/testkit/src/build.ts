import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths';

/** The projects `npm run build` builds, in the same order. */
const PROJECTS = [
  'gateway',
  'console',
  'services/records',
  'services/plans',
  'services/webhooks',
  'cli',
];

/**
 * Runs `tsc -b` (incremental) over the projects that exist yet, so spawned services always
 * run a dist/ built from the current sources. BRAND_TEST_BUILD_PROJECTS (space-separated)
 * narrows the list, e.g. while another project does not compile; BRAND_TEST_SKIP_BUILD=1
 * skips the step. Throws with the compiler output when the build fails: stale dist/
 * would make failures impossible to read.
 */
export function buildServices(): void {
  if (process.env.BRAND_TEST_SKIP_BUILD === '1') return;
  const wanted = process.env.BRAND_TEST_BUILD_PROJECTS?.split(/\s+/).filter(Boolean) ?? PROJECTS;
  const projects = wanted.filter((p) => existsSync(path.join(REPO_ROOT, p, 'tsconfig.json')));
  if (projects.length === 0) return;
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', ...projects], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `globalSetup: \`npx tsc -b ${projects.join(' ')}\` failed (exit ${String(result.status)}):\n` +
        `${result.stdout}${result.stderr}${result.error ? String(result.error) : ''}\n` +
        'Fix the build, or set BRAND_TEST_BUILD_PROJECTS to the projects you are testing.',
    );
  }
}
