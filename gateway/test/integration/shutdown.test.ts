import http from 'node:http';
import { startStack, waitFor, type Stack } from '@brand/testkit';

// Issue 11: graceful shutdown of the gateway. On SIGTERM it reports not ready for
// SHUTDOWN_DRAIN_MS while still serving, then closes its listener and finishes in-flight
// requests. A client that keeps reusing a keep-alive connection (a balancer probing
// /readyz, an SDK client) must be told `Connection: close`, or it would hold the process
// until the grace period kills it (exit 143).

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: { SHUTDOWN_DRAIN_MS: '600', SHUTDOWN_GRACE_MS: '10000' },
  });
});
afterAll(async () => {
  await stack?.close();
});

interface Probe {
  status: number;
  connection: string | undefined;
}

/** GET /readyz on one kept-alive socket; undefined once the gateway refuses connections. */
function probe(agent: http.Agent, port: number): Promise<Probe | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/readyz', agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
      );
    });
    req.on('error', () => resolve(undefined));
  });
}

it('on SIGTERM drains, tells keep-alive clients to leave, and exits 0 long before the grace period', async () => {
  const gateway = stack.gateway;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const seen: Probe[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const answer = await probe(agent, gateway.port);
      if (answer) seen.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    // the first answers may take a while on a loaded machine: wait for them, not for a time
    await waitFor(() => seen.length >= 3, { timeoutMs: 10_000, what: 'three answered probes' });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.status === 200 && p.connection === 'keep-alive')).toBe(true);

    const before = seen.length;
    const signalled = Date.now();
    const code = await gateway.stop('SIGTERM', 15_000);
    const tookMs = Date.now() - signalled;

    expect(code).toBe(0);
    // far below drain + grace (10.6 s): the prober never held the process open
    expect(tookMs).toBeLessThan(5_000);
    // while draining it still answered, not ready, and asked the client to reconnect (a probe
    // already in flight when the signal came may still have been answered ready)
    const during = seen.slice(before).filter((p) => p.status !== 200);
    expect(during.length).toBeGreaterThan(0);
    expect(during).toEqual(during.map(() => ({ status: 503, connection: 'close' })));
    expect(seen.length - before - during.length).toBeLessThanOrEqual(1);
  } finally {
    probing = false;
    await prober;
    agent.destroy();
  }
  // and the port is closed
  expect(await probe(new http.Agent(), gateway.port)).toBeUndefined();
});
