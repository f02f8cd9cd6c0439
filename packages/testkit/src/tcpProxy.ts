import net from 'node:net';
import { freePort } from './freePort';

/** A loopback TCP proxy in front of a real server, for making it "go down" in a test. */
export interface TcpProxy {
  port: number;
  /**
   * A URL through the proxy: `url('postgres', 'brand_t_x')` →
   * `postgres://postgres@127.0.0.1:<port>/brand_t_x`, `url('redis', '2')` → `redis://127.0.0.1:<port>/2`.
   */
  url(scheme: 'redis' | 'postgres', pathOrDb?: string): string;
  /** The same URL with its host and port replaced by the proxy's (credentials and path kept). */
  rewrite(url: string): string;
  /** Stops listening and resets every open connection: new connects are refused, open ones fail. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  /**
   * Points the proxy at another server, as a managed endpoint's DNS name moves to a promoted
   * standby: open connections are reset (they were to the old server), new ones go to `target`.
   */
  moveTo(target: { host: string; port: number }): void;
  /** Stops for good. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 that pipes every connection to `target`, on a port below the
 * ephemeral range (freePort), so that no outgoing connection holds it while the
 * proxy is paused and `resume` can listen on it again.
 */
export async function tcpProxy(initial: { host: string; port: number }): Promise<TcpProxy> {
  let target = initial;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    // either side failing or closing takes the other down, like a real connection would
    client.on('error', () => upstream.destroy());
    // ended plainly, not reset: a reset of an accepted socket whose peer is going away could leave
    // its handle open, and the server's close then never finished (issue 60's failovers)
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('error', () => undefined);

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  // pause() resets its connections (RST, as a server that vanished); moving and closing end them
  // plainly: a reset of a socket mid-close or mid-connect can leave its handle open, which then
  // holds the test process after its run (seen after failovers, issue 60).
  const cut = (s: net.Socket, how: 'reset' | 'end') =>
    how === 'reset' && !s.connecting ? s.resetAndDestroy() : s.destroy();
  const stop = (how: 'reset' | 'end') =>
    new Promise<void>((resolve) => {
      for (const s of sockets) cut(s, how);
      sockets.clear();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      if (how === 'end') {
        // for good: nothing of the proxy may hold the test process open, nor its close wait
        // on a socket whose handle outlives it
        server.unref();
        setTimeout(resolve, 1_000).unref();
      }
    });

  // another process may take the port between the probe and the listen: try a few
  for (let tries = 1; !server.listening; tries++) {
    await listen(await freePort()).catch((err: unknown) => {
      if (tries >= 5) throw err;
    });
  }
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url(scheme, pathOrDb = '') {
      return scheme === 'postgres'
        ? `postgres://postgres@127.0.0.1:${port}/${pathOrDb || 'postgres'}`
        : `redis://127.0.0.1:${port}${pathOrDb ? `/${pathOrDb}` : ''}`;
    },
    rewrite(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    pause: () => stop('reset'),
    resume: () => (server.listening ? Promise.resolve() : listen(port)),
    moveTo(next) {
      target = next;
      for (const s of sockets) cut(s, 'end');
      sockets.clear();
    },
    close: () => stop('end'),
  };
}
