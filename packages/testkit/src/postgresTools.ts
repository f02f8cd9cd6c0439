import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** PostgreSQL's bin directory: pg_config's answer, else the newest Debian-layout install. */
export async function postgresBinDir(): Promise<string> {
  const fromPgConfig = await new Promise<string | undefined>((resolve) =>
    execFile('pg_config', ['--bindir'], (err, stdout) => resolve(err ? undefined : stdout.trim())),
  );
  if (fromPgConfig && existsSync(path.join(fromPgConfig, 'initdb'))) return fromPgConfig;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((v) => path.join(root, v, 'bin'))
    .find((d) => existsSync(path.join(d, 'initdb')));
  if (!found) throw new Error('no initdb found (pg_config --bindir, /usr/lib/postgresql/*/bin)');
  return found;
}

/** Runs one of PostgreSQL's client tools (pg_dump, pg_restore) and resolves with its stdout. */
export async function runPostgresTool(tool: string, args: string[]): Promise<string> {
  const file = path.join(await postgresBinDir(), tool);
  return new Promise((resolve, reject) =>
    execFile(
      file,
      args,
      { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${tool} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}
