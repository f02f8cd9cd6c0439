import http from 'node:http';
import { waitFor } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

// The console drains on SIGTERM as the gateway does (gateway/test/integration/shutdown.test.ts):
// /readyz on the internal listener answers 503 for SHUTDOWN_DRAIN_MS while the pages are still
// served, every answer carrying Connection: close; then the listener closes. An ingress keeps
// sending to a pod until the endpoint removal reaches it, on kept-alive connections and new
// ones: every request it sends in that time must be answered, none refused or reset (a reset
// POST is a 502 to the person). Before the drain the console closed its listener and its idle
// keep-alive connections at the signal, and the requests after it were refused.

const DRAIN_MS = 2_000;
/** How long after the signal the "ingress" still sends here: well inside the drain. */
const SENDS_FOR_MS = 1_000;

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({
    signInOnly: true,
    consoleEnv: { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), SHUTDOWN_GRACE_MS: '10000' },
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

interface Exchange {
  sentAt: number;
  method: string;
  status?: number;
  connection?: string;
  error?: string;
}

/** One request on `agent`; the outcome, an error included (refused, reset), never thrown. */
function send(
  agent: http.Agent,
  port: number,
  method: 'GET' | 'POST',
  path: string,
  origin: string,
): Promise<Exchange> {
  const sentAt = Date.now();
  // An address that is not one: the sign-in form answers 400 without calling records.
  const body = method === 'POST' ? 'email=not-an-address' : undefined;
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: body
          ? {
              origin,
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
            }
          : {},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ sentAt, method, status: res.statusCode, connection: res.headers.connection }),
        );
        res.on('error', (err) => resolve({ sentAt, method, error: String(err) }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ sentAt, method, error: err.code ?? String(err) }),
    );
    req.end(body);
  });
}

it('on SIGTERM answers every request sent during the drain, reports not ready, and exits 0', async () => {
  const port = cs.consoleProcess.port;
  const opsPort = Number(new URL(cs.opsUrl).port);
  // The ingress: kept-alive connections (a new one whenever the console asks it to reconnect).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const opsAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const pages: Exchange[] = [];
  const readiness: Exchange[] = [];
  let signalledAt = Number.POSITIVE_INFINITY;
  let probing = true;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  // Two loops, one GETs the sign-in page, one posts its form, until SENDS_FOR_MS after the signal.
  const sender = (method: 'GET' | 'POST') =>
    (async () => {
      while (Date.now() < signalledAt + SENDS_FOR_MS) {
        pages.push(await send(agent, port, method, '/sign-in', cs.url));
        await sleep(20);
      }
    })();
  const senders = [sender('GET'), sender('POST')];
  const prober = (async () => {
    while (probing) {
      readiness.push(await send(opsAgent, opsPort, 'GET', '/readyz', cs.url));
      await sleep(20);
    }
  })();
  let code: number | null;
  let tookMs: number;
  try {
    await waitFor(
      () => pages.filter((p) => p.status).length >= 4 && readiness.some((p) => p.status),
      { timeoutMs: 15_000, what: 'answered pages and probes' },
    );
    expect(pages.every((p) => p.status !== undefined && p.connection === 'keep-alive')).toBe(true);
    expect(readiness.every((p) => p.status === 200)).toBe(true);

    signalledAt = Date.now();
    const exited = cs.consoleProcess.stop('SIGTERM', 20_000);
    await Promise.all(senders);
    code = await exited;
    tookMs = Date.now() - signalledAt;
  } finally {
    signalledAt = Math.min(signalledAt, Date.now());
    probing = false;
    await Promise.all([...senders, prober]);
    agent.destroy();
    opsAgent.destroy();
  }

  const during = pages.filter((p) => p.sentAt >= signalledAt);
  const summary = during.map((p) => `${p.method} ${p.status ?? p.error} ${p.connection ?? ''}`);
  // enough requests met the drain to mean something (two loops every ~20 ms for 1 s)
  expect(during.length).toBeGreaterThanOrEqual(10);
  // every one answered as before the signal (the sign-in page 200, the bad form 400): none
  // refused, reset or cut off
  expect(summary.filter((s) => !/^(GET 200|POST 400) /.test(s))).toEqual([]);
  // and asked to reconnect (but those sent before the console's handler ran)
  expect(during.filter((p) => p.sentAt >= signalledAt + 100 && p.connection !== 'close')).toEqual(
    [],
  );

  // /readyz said not ready while the pages were still served
  const probesAfter = readiness.filter((p) => p.sentAt >= signalledAt + 100);
  const notReady = probesAfter.filter((p) => p.status === 503);
  expect(notReady.length).toBeGreaterThan(0);
  expect(
    probesAfter.filter((p) => p.sentAt < signalledAt + SENDS_FOR_MS && p.status !== 503),
  ).toEqual([]);

  expect(code).toBe(0);
  // the drain, then little more: no kept-alive connection held the process to its grace period
  expect(tookMs).toBeGreaterThanOrEqual(DRAIN_MS - 100);
  expect(tookMs).toBeLessThan(DRAIN_MS + 5_000);
  // and both ports are closed
  expect((await send(new http.Agent(), port, 'GET', '/sign-in', cs.url)).error).toBeDefined();
  expect((await send(new http.Agent(), opsPort, 'GET', '/readyz', cs.url)).error).toBeDefined();
});
