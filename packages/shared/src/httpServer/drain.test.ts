import http, { createServer } from 'node:http';
import { closeHttpServer, listenHttp } from './index';
import { closingWhenDraining, drainHttpSteps } from './drain';

// The drain the gateway and the console run first on SIGTERM: not ready and still serving,
// every answer asking the client to reconnect, then the listener closes once requests finish.

function get(agent: http.Agent, port: number): Promise<{ status?: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode, connection: res.headers.connection }),
        );
      })
      .on('error', reject);
  });
}

it('serves through the drain with Connection: close, then closes the listener', async () => {
  const state = { accepting: true };
  const server = createServer(closingWhenDraining(state, (_req, res) => res.end('ok')));
  const port = await listenHttp(server, 0, '127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    expect(await get(agent, port)).toEqual({ status: 200, connection: 'keep-alive' });
    const [drain, close] = drainHttpSteps({ server, state, drainMs: 300 });
    const started = Date.now();
    const draining = Promise.resolve(drain!.run());
    expect(state.accepting).toBe(false);
    // the kept-alive connection is still served, and told to leave; so is a new one
    expect(await get(agent, port)).toEqual({ status: 200, connection: 'close' });
    expect(await get(agent, port)).toEqual({ status: 200, connection: 'close' });
    await draining;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await close!.run();
    await expect(get(new http.Agent(), port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  } finally {
    agent.destroy();
    if (server.listening) await closeHttpServer(server);
  }
});
