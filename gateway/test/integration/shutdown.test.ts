import http from 'node:http';
import { startStack, waitFor, type Stack } from '@brand/testkit';

// Issue 11: graceful shutdown of the gateway. On SIGTERM it reports not ready for
// SHUTDOWN_DRAIN_MS while still serving, then closes its listener and finishes in-flight
// requests. A client that keeps reusing a keep-alive connection to the public port (an SDK
// client) must be told `Connection: close`, or it would hold the process until the grace
// period kills it (exit 143). The balancer probes /readyz on the internal listener (the public
// port has no keyless probe), which the shutdown closes outright.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      SHUTDOWN_DRAIN_MS: '600',
      SHUTDOWN_GRACE_MS: '10000',
      // the public prober fetches the keyless description file every 20 ms
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
});
afterAll(async () => {
  await stack?.close();
});

interface Probe {
  status: number;
  connection: string | undefined;
}

/** GET `path` on one kept-alive socket; undefined once the gateway refuses connections. */
function probe(agent: http.Agent, port: number, path: string): Promise<Probe | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
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
  const opsPort = Number(new URL(gateway.opsUrl).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const opsAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const seen: Probe[] = [];
  const readiness: Probe[] = [];
  let probing = true;
  const every20ms = (agentOf: http.Agent, port: number, path: string, into: Probe[]) =>
    (async () => {
      while (probing) {
        const answer = await probe(agentOf, port, path);
        if (answer) into.push(answer);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
  const probers = [
    every20ms(agent, gateway.port, '/openapi/service.yaml', seen),
    every20ms(opsAgent, opsPort, '/readyz', readiness),
  ];
  try {
    // the first answers may take a while on a loaded machine: wait for them, not for a time
    await waitFor(() => seen.length >= 3 && readiness.length >= 3, {
      timeoutMs: 10_000,
      what: 'three answered requests and probes',
    });
    expect(seen.every((p) => p.status === 200 && p.connection === 'keep-alive')).toBe(true);
    expect(readiness.every((p) => p.status === 200)).toBe(true);

    const before = seen.length;
    const readyBefore = readiness.length;
    const signalled = Date.now();
    const code = await gateway.stop('SIGTERM', 15_000);
    const tookMs = Date.now() - signalled;

    expect(code).toBe(0);
    // far below drain + grace (10.6 s): the prober never held the process open
    expect(tookMs).toBeLessThan(5_000);
    // while draining the internal listener said not ready (a probe already in flight when the
    // signal came may still have been answered ready)
    const notReady = readiness.slice(readyBefore).filter((p) => p.status !== 200);
    expect(notReady.length).toBeGreaterThan(0);
    expect(notReady.every((p) => p.status === 503)).toBe(true);
    expect(readiness.length - readyBefore - notReady.length).toBeLessThanOrEqual(1);
    // and the public port still answered, asking the client to reconnect
    const during = seen.slice(before).filter((p) => p.connection === 'close');
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((p) => p.status === 200)).toBe(true);
    expect(seen.length - before - during.length).toBeLessThanOrEqual(1);
  } finally {
    probing = false;
    await Promise.all(probers);
    agent.destroy();
    opsAgent.destroy();
  }
  // and both ports are closed
  expect(await probe(new http.Agent(), gateway.port, '/openapi/service.yaml')).toBeUndefined();
  expect(await probe(new http.Agent(), opsPort, '/readyz')).toBeUndefined();
});
