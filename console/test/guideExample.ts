import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT, waitFor } from '@brand/testkit';

/** The minimal receiver a receiver page shows, as a person would copy it from the page. */
export function exampleCodeOf(page: string): string {
  const code = /<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(page)?.[1];
  if (code === undefined) throw new Error('no example code on the page');
  return code
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** A copied example running under node, as its reader would run it. */
export interface RunningExample {
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Whether it is still running. */
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * Runs `code` as an ES module with node, in a directory of its own that sees the repository's
 * node_modules (express, the official client), with the signing secret, a port and `env` in its
 * environment; resolves once it listens, and fails with what it printed if it exits first.
 */
export async function runExample(
  code: string,
  secret: string,
  env: Record<string, string> = {},
  /** Serve HTTPS with this CA's localhost certificate; without it, plain HTTP behind a TLS proxy. */
  tls?: { dir: string },
): Promise<RunningExample> {
  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-guide-'));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'receiver.mjs'), code);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['receiver.mjs'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      BRAND_RECORDS_SIGNING_SECRET: secret,
      PORT: String(port),
      ...(tls
        ? {
            TLS_CERT_FILE: path.join(tls.dir, 'localhost.pem'),
            TLS_KEY_FILE: path.join(tls.dir, 'localhost-key.pem'),
          }
        : { TLS_BEHIND_PROXY: 'true' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout!.on('data', (d: Buffer) => (printed += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (printed += d.toString('utf8')));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () => {
        if (!running()) throw new Error(`the example exited: ${printed}`);
        return printed.includes('Receiving');
      },
      { timeoutMs: 15_000, what: 'the example to listen' },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    output: () => printed,
    running,
    stop,
  };
}

/** A delivery as docs/contract.md#delivery-request, #receiver-verification describe it, signed with `secret` at `timestamp` (seconds). */
export function signedDelivery(opts: { secret: string; timestamp?: number; type?: string }): {
  headers: Record<string, string>;
  body: string;
} {
  const type = opts.type ?? 'payout.paid';
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const body = JSON.stringify({
    id: 'evt_0000000000000Guide',
    type,
    created_at: new Date().toISOString(),
    test: true,
    brand_id: 'br_guide',
    data: { object: { resource: 'payouts', id: 'po_guide', status: 'paid' } },
  });
  const digest = createHmac('sha256', opts.secret).update(`${timestamp}.${body}`).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-event': type,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': `sha256=${digest}`,
      'x-service-attempt': '1',
    },
  };
}

/** Posts a delivery to `url` and returns the status answered; https URLs trust only `ca`. */
export async function deliver(
  url: string,
  d: { headers: Record<string, string>; body: string },
  ca?: Buffer,
): Promise<number> {
  if (!url.startsWith('https:')) {
    return (await fetch(url, { method: 'POST', headers: d.headers, body: d.body })).status;
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', headers: d.headers, ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(d.body);
  });
}

/** An HTTPS front for a plain-HTTP example, as a TLS-ending proxy would serve it. */
export interface TlsFront {
  port: number;
  /** Where requests go from now on. */
  forwardTo(port: number): void;
  /** What the example answered to each request, with its X-Service-Event. */
  answered: { event: string | undefined; status: number }[];
  close(): Promise<void>;
}

/** Starts an HTTPS server with the test CA's localhost certificate, forwarding to 127.0.0.1. */
export async function startTlsFront(tls: { key: Buffer; cert: Buffer }): Promise<TlsFront> {
  let target = 0;
  const answered: TlsFront['answered'] = [];
  const server = createHttpsServer(tls, (req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const event = req.headers['x-service-event'];
        answered.push({
          event: typeof event === 'string' ? event : undefined,
          status: answer.statusCode ?? 0,
        });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    port,
    forwardTo: (p) => (target = p),
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
