import * as http from 'node:http';
import * as https from 'node:https';
import { connect, type Server } from 'node:net';

/** A certificate and key to serve HTTPS with. */
export interface ServerTls {
  key: string | Buffer;
  cert: string | Buffer;
}

/**
 * An HTTP (or, given `tls`, HTTPS) server for `listener` with bounded deadlines: headers within
 * 10 s, the whole request within 15 s. Node checks them every 30 s by default, which held a
 * stalled request ~28 s past them; checked every second, it is cut ~15 s after it began. A
 * client that resets its connection must not take the process down.
 */
export function createBoundedServer(
  listener: http.RequestListener,
  tls?: ServerTls,
): http.Server | https.Server {
  const options: http.ServerOptions = {
    requestTimeout: 15_000,
    headersTimeout: 10_000,
    connectionsCheckingInterval: 1_000,
  };
  const server = tls
    ? https.createServer({ ...options, key: tls.key, cert: tls.cert }, listener)
    : http.createServer(options, listener);
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}

/** Binds `server` and resolves with the bound port (useful with port 0); rejects on bind errors. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** The base URL of a bound server; IPv6 literals need brackets. */
export function baseUrl(scheme: 'http' | 'https', host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Stops accepting, then ends open connections too (a scripted hang would otherwise keep close() waiting). */
export function closeServer(server: Server & { closeAllConnections?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/**
 * For tests of createBoundedServer's deadlines: opens a connection to 127.0.0.1:`port`, sends
 * headers promising a 100-byte body and one byte of it, then nothing (a slow-body client), and
 * resolves with how long the server took to close it; rejects if still open after `giveUpMs`.
 */
export function msUntilStalledRequestClosed(port: number, giveUpMs = 20_000): Promise<number> {
  const started = Date.now();
  return new Promise<number>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Date.now() - started));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the stalled request was still held after ${giveUpMs} ms`));
    }, giveUpMs).unref();
  });
}
