// The Redis of W1 (the BullMQ peer, issue 64): a redis-server of the bench's own for each W1
// rig, on a free port and a temporary directory, run as BullMQ's "Going to production" asks
// (AOF on, fsync every second; maxmemory-policy noeviction; no RDB snapshots), so W1's queue is
// as durable as a team that cares about loss would make it. The machine's Redis on 6379 keeps
// nothing on disk and is never touched. Its CPU is W1's store's, as PostgreSQL's backends are
// W0's and ours'. Stopped and its directory removed with the rig (and by cleanup, whatever
// happens).
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { spawnService } from './processes.mjs';
import { LOG_DIR } from './settings.mjs';

/** A port nothing listens on now (the kernel's pick, released before redis-server takes it). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts one; resolves to { url, pid, stop() } once it accepts connections. */
export async function startPeerRedis(name) {
  const dir = mkdtempSync(path.join(tmpdir(), 'brand-bench-w1-redis-'));
  let removed = false;
  const removeDir = () => {
    if (!removed) rmSync(dir, { recursive: true, force: true });
    removed = true;
  };
  onCleanup(`remove ${dir}`, removeDir);
  const port = await freePort();
  const server = await spawnService({
    name,
    command: 'redis-server',
    // prettier-ignore
    args: [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
      '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction',
      '--protected-mode', 'yes',
    ],
    env: {},
    logFile: path.join(LOG_DIR, `${name}.log`),
    readyPattern: /Ready to accept connections/,
    port,
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: server.pid,
    process: server,
    async stop() {
      await server.stop();
      removeDir();
    },
  };
}
