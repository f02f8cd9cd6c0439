// The previous release, built from git in a temporary worktree (issue 60's upgrade test): the
// commit before the newest migration of this tree's history (UPGRADE_FROM=<rev> names another),
// so its services run against a schema one release newer than theirs, as the old pods do for
// the length of a rollout (the migration Job runs before the new pods).
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@brand/testkit';

export interface PreviousRelease {
  commit: string;
  /** The worktree: `<root>/services/records/dist/main.js` and the like are built. */
  root: string;
  /** Removes the worktree and its build. */
  remove(): Promise<void>;
}

/** The projects a release's services are built from (their references build shared and proto). */
const PROJECTS = ['gateway', 'services/records', 'services/plans', 'services/webhooks'];

function run(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      file,
      args,
      { cwd, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`))
          : resolve(stdout.trim()),
    ),
  );
}

/** The commit before the newest one that added a migration (what the tree's migrations upgrade from). */
async function commitBeforeNewestMigration(): Promise<string> {
  const newest = await run(
    'git',
    ['log', '-1', '--diff-filter=A', '--format=%H', '--', 'services/*/migrations/*.sql'],
    REPO_ROOT,
  );
  if (!newest) throw new Error('no commit added a migration: nothing to upgrade from');
  return run('git', ['rev-parse', `${newest}^`], REPO_ROOT);
}

/**
 * The worktree's node_modules: the checkout's installed packages (linked, not installed again),
 * and its own workspace links, which point into the worktree (relative links copied as they are).
 */
function linkDependencies(root: string): void {
  const modules = path.join(REPO_ROOT, 'node_modules');
  const own = path.join(root, 'node_modules');
  mkdirSync(path.join(own, '@brand'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry === '@brand') continue;
    symlinkSync(path.join(modules, entry), path.join(own, entry));
  }
  for (const entry of readdirSync(path.join(modules, '@brand')))
    symlinkSync(readlinkSync(path.join(modules, '@brand', entry)), path.join(own, '@brand', entry));
  // a workspace's own node_modules (versions apart from the root's)
  for (const workspace of [
    'gateway',
    'console',
    'cli',
    'packages/shared',
    'services/records',
    'services/plans',
    'services/webhooks',
  ]) {
    const nested = path.join(REPO_ROOT, workspace, 'node_modules');
    if (existsSync(nested) && existsSync(path.join(root, workspace)))
      symlinkSync(nested, path.join(root, workspace, 'node_modules'));
  }
}

export async function buildPreviousRelease(): Promise<PreviousRelease> {
  const commit = process.env.UPGRADE_FROM
    ? await run('git', ['rev-parse', process.env.UPGRADE_FROM], REPO_ROOT)
    : await commitBeforeNewestMigration();
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'brand-previous-release-')), 'tree');
  const remove = async (): Promise<void> => {
    await run('git', ['worktree', 'remove', '--force', root], REPO_ROOT).catch(() => undefined);
    rmSync(path.dirname(root), { recursive: true, force: true });
    await run('git', ['worktree', 'prune'], REPO_ROOT).catch(() => undefined);
  };
  try {
    await run('git', ['worktree', 'add', '--detach', root, commit], REPO_ROOT);
    linkDependencies(root);
    // emit only: the release was type-checked when it was made
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-b', '--noCheck', ...PROJECTS], root);
    return { commit, root, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
