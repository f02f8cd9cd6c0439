import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './freePort';
import { waitFor } from './waitFor';

/**
 * A redis-server of one test on a free port (never the shared one), run as a child so the
 * test can SIGKILL it and start it again on the same port. Like many production caches it
 * keeps nothing on disk (--save '' --appendonly no): a restart comes back empty.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL, and resolves once the port is closed. */
  kill(): Promise<void>;
  /** Starts it again (empty) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const running = new Set<ChildProcess>();

/**
 * `replicaOf` (a port on 127.0.0.1) starts it as a replica of that server, as a managed Redis
 * keeps one beside its primary (the fault suite's Redis failover, issue 60).
 */
export async function startOwnRedis(opts: { replicaOf?: number } = {}): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  // a replica loads its primary's copy from the socket, never writing dump.rdb into its cwd
  const replica =
    opts.replicaOf === undefined
      ? []
      : ['--replicaof', '127.0.0.1', String(opts.replicaOf), '--repl-diskless-load', 'on-empty-db'];
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        ...replica,
      ],
      { stdio: 'ignore' },
    );
    running.add(child);
    let failed: Error | undefined;
    child.once('error', (err) => (failed = err)); // e.g. no redis-server on PATH
    await waitFor(
      () => {
        if (failed) throw failed;
        return answers(port);
      },
      { timeoutMs: 10_000, what: `redis-server on ${port}` },
    );
  };
  const kill = async (): Promise<void> => {
    const dying = child;
    // gone already (a SIGKILL leaves exitCode null and sets signalCode): no 'exit' will come
    if (!dying || dying.exitCode !== null || dying.signalCode !== null) return;
    const exited = new Promise((r) => dying.once('exit', r));
    dying.kill('SIGKILL');
    await exited;
    running.delete(dying);
    await waitFor(async () => !(await answers(port)), { what: `redis-server on ${port} gone` });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start };
}

/** Kills every redis-server this module started (afterAll). */
export function stopOwnRedises(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
