// A PostgreSQL server of the fault suite's own (initdb into a temp dir, pg_ctl on a free
// port), so the suite can stop and restart it without touching the machine's shared one.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, postgresBinDir } from '@brand/testkit';

export interface OwnPostgres {
  port: number;
  /** A URL of `database` on this server (user postgres, trust auth on loopback). */
  url(database: string): string;
  /** A fast shutdown (connections cut, no crash recovery needed); the data stays. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and deletes its data directory. */
  remove(): Promise<void>;
}

export function run(cmd: string, args: string[]): Promise<string> {
  // initdb and postgres refuse to run as root: as root, run them as the postgres user
  const [file, argv] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) =>
    execFile(file, argv, { timeout: 120_000 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${cmd} ${args[0] ?? ''} failed: ${err.message}\n${stderr}`))
        : resolve(stdout),
    ),
  );
}

/** PostgreSQL's bin directory (the testkit finds it for its client tools too). */
export const binDir = postgresBinDir;

/** initdb (trust auth, fsync off: a throwaway server) and start it on a free port. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = await binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-faults-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = async () => {
    await pgCtl('start', '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', options);
  };
  await start();
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await pgCtl('stop', '-w', '-m', 'fast');
    },
    start,
    remove: async () => {
      await pgCtl('stop', '-w', '-m', 'immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const id = (flag: string) =>
    new Promise<number>((resolve, reject) =>
      execFile('id', [flag, 'postgres'], (err, stdout) =>
        err
          ? reject(new Error('no postgres user to run the suite’s own PostgreSQL as'))
          : resolve(Number(stdout.trim())),
      ),
    );
  return { uid: await id('-u'), gid: await id('-g') };
}
