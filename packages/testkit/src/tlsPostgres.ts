import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './freePort';
import type { TestCa } from './testCa';

/** A throwaway PostgreSQL of one test that accepts TLS connections only (issue 43). */
export interface TlsPostgres {
  port: number;
  /** postgres://postgres@<host>:<port>/postgres with `query` appended (e.g. "sslmode=verify-full"). */
  url(host: string, query: string): string;
  /** Stops the server (fast) and deletes its data directory. */
  remove(): void;
}

/** The newest PostgreSQL's bin directory of Debian's packages (initdb, pg_ctl). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no PostgreSQL under ${root}`);
  return path.join(root, versions[0], 'bin');
}

/** initdb and the server refuse to run as root: as root, they run as the postgres user. */
function runAs(): { uid: number; gid: number; wrap: (cmd: string[]) => string[] } {
  if (process.getuid?.() !== 0) {
    return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, wrap: (cmd) => cmd };
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid, wrap: (cmd) => ['runuser', '-u', 'postgres', '--', ...cmd] };
}

function run(cmd: string[], what: string): void {
  const result = spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(`${what} failed (${String(result.status)}): ${result.stderr}${result.stdout}`);
}

/**
 * Starts a PostgreSQL with `ssl = on` and `ca`'s localhost certificate (valid for localhost,
 * 127.0.0.1 and ::1) on a free port of 127.0.0.1 and 127.0.0.2 (an address the certificate does
 * not name), trusting every user but refusing connections without TLS (pg_hba hostnossl
 * reject). initdb and pg_ctl from Debian's packages; a temp data directory.
 */
export async function startTlsPostgres(ca: TestCa): Promise<TlsPostgres> {
  const bin = postgresBin();
  const user = runAs();
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-pg-tls-'));
  chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  run(
    user.wrap([path.join(bin, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']),
    'initdb',
  );
  // the server reads its key only when owned by it and private
  for (const [from, to] of [
    [path.join(ca.dir, 'localhost.pem'), 'server.crt'],
    [path.join(ca.dir, 'localhost-key.pem'), 'server.key'],
  ] as const) {
    copyFileSync(from, path.join(data, to));
    chownSync(path.join(data, to), user.uid, user.gid);
    chmodSync(path.join(data, to), 0o600);
  }
  writeFileSync(
    path.join(data, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1,127.0.0.2'`,
      `unix_socket_directories = '${dir}'`,
      'ssl = on',
      `ssl_cert_file = 'server.crt'`,
      `ssl_key_file = 'server.key'`,
      'fsync = off',
      'max_connections = 30',
      'shared_buffers = 16MB',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      'hostssl all all 127.0.0.0/8 trust',
      'hostnossl all all 127.0.0.0/8 reject',
      '',
    ].join('\n'),
  );
  const log = path.join(dir, 'server.log');
  writeFileSync(log, '');
  chownSync(log, user.uid, user.gid);
  run(
    user.wrap([path.join(bin, 'pg_ctl'), '-D', data, '-l', log, '-w', '-t', '30', 'start']),
    'pg_ctl start',
  );
  return {
    port,
    url: (host, query) => `postgres://postgres@${host}:${port}/postgres?${query}`,
    remove: () => {
      const stop = user.wrap([path.join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']);
      spawnSync(stop[0]!, stop.slice(1), { timeout: 30_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
