import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A loopback TCP port nothing listens on right now (for a server the test starts itself). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Ports below this are never given to outgoing connections (the kernel's ephemeral range). */
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

/** Ports freeRestartablePort handed out in this process: none is handed out twice. */
const handedOut = new Set<number>();

/**
 * A free loopback port for a server that a test stops and starts again on the same port (a
 * broker or a cache it restarts). freePort's come from the ephemeral range, where the kernel
 * may give a stopped server's port to any outgoing connection meanwhile (a client of another
 * test), and the restart then cannot bind it; these come from below that range. A port is
 * handed out once per process: a test asking for several before it binds any (a broker's
 * listeners) gets distinct ones (two draws once came out equal, and kafka.sh refused them).
 */
export async function freeRestartablePort(): Promise<number> {
  const low = 20_000;
  const high = ephemeralLow() - 1;
  for (let tries = 0; tries < 50; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((r) => server.close(() => r()));
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${low} and ${high} after 50 tries`);
}
