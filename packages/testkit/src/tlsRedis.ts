import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import path from 'node:path';
import { freePort } from './freePort';
import type { TestCa } from './testCa';
import { waitFor } from './waitFor';

/** A redis-server of one test that speaks TLS only (issue 43). */
export interface TlsRedis {
  port: number;
  /** rediss://<host>:<port> */
  url(host: string): string;
  stop(): Promise<void>;
}

/** True once a TLS handshake with the server succeeds, trusting `ca`. */
function handshakes(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * Starts redis-server with TLS only (--port 0 --tls-port) and `ca`'s localhost certificate,
 * on 127.0.0.1 and 127.0.0.2 (an address the certificate does not name), without client
 * certificates and without persistence. Debian's redis-server is built with TLS.
 */
export async function startTlsRedis(ca: TestCa): Promise<TlsRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '127.0.0.2',
      '--tls-cert-file',
      path.join(ca.dir, 'localhost.pem'),
      '--tls-key-file',
      path.join(ca.dir, 'localhost-key.pem'),
      '--tls-ca-cert-file',
      ca.caFile,
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: 'ignore' },
  );
  let failed: Error | undefined;
  child.once('error', (err) => (failed = err));
  child.once('exit', (code) => (failed ??= new Error(`redis-server exited (${String(code)})`)));
  const caPem = readFileSync(ca.caFile, 'utf8');
  await waitFor(
    () => {
      if (failed) throw failed;
      return handshakes(port, caPem);
    },
    { timeoutMs: 10_000, what: `redis-server TLS on ${port}` },
  );
  return {
    port,
    url: (host) => `rediss://${host}:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
