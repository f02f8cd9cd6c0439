import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are never given to outgoing connections or to listen(0) (the kernel's ephemeral range). */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > 20_000 ? n : 32_768;
  } catch {
    return 32_768;
  }
}

/** How many slices the range is cut into: one per jest worker, so workers never draw the same port. */
const SLICES = 16;

/**
 * This process's slice of [20000, ephemeral low): a jest worker's id picks it, offset by
 * TEST_PORT_SLICE_BASE for a jest run beside another (scripts/test.sh gives each of its lanes
 * its own base, as their workers' ids are the same 1, 2, 3).
 */
function ownSlice(): { low: number; high: number } {
  const low = 20_000;
  const width = Math.floor((ephemeralLow() - low) / SLICES);
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  const base = Number(process.env.TEST_PORT_SLICE_BASE ?? 0);
  const index =
    ((Number.isInteger(worker) ? worker : 0) + (Number.isInteger(base) ? base : 0)) % SLICES;
  return { low: low + index * width, high: low + (index + 1) * width - 1 };
}

/** Ports handed out in this process: none is handed out twice. */
const handedOut = new Set<number>();

/**
 * A free loopback port for a server that starts later: a process the test spawns, or one it stops
 * and starts again on the same port (a broker, a cache). A port from listen(0) would come from the
 * ephemeral range, where the kernel may give it to any other socket meanwhile (an outgoing
 * connection, another test's listen(0)), and the server then cannot bind it: CI once saw webhooks
 * fail with EADDRINUSE on such a port seconds after the test picked it. These come from below that
 * range, from a slice of it that belongs to this jest worker, and a port is handed out once per
 * process: a test asking for several before it binds any gets distinct ones.
 */
export async function freePort(): Promise<number> {
  const { low, high } = ownSlice();
  for (let tries = 0; tries < 100; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    // Reserved before the probe, so calls running at once (Promise.all) never share one.
    handedOut.add(port);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((r) => server.close(() => r()));
      return port;
    }
  }
  throw new Error(`no free port between ${low} and ${high} after 100 tries`);
}
