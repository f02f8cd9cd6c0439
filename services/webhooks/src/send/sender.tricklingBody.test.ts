// A real Sender against a real TLS receiver that answers its status at once and then trickles
// its body (a byte every 100 ms, for ever). The status decides the outcome; the body is only
// shown. Without a bound of its own on the body, the attempt (and a place of its receiver's)
// was held until the whole attempt's deadline.
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { createTestCa, type TestCa } from '@brand/testkit';
import { BODY_WAIT_MS } from './responseBody';
import { Sender } from './sender';

const TOTAL_TIMEOUT_MS = 10_000;
let ca: TestCa;
let server: https.Server;
let url: string;
let sender: Sender;
let status = 200;

beforeAll(async () => {
  ca = createTestCa();
  server = https.createServer(ca.tls, (req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.write('accepted:');
    const drip = setInterval(() => res.write('.'), 100);
    res.on('close', () => clearInterval(drip));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
  sender = new Sender({
    allowLoopback: true,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: TOTAL_TIMEOUT_MS,
    extraCa: readFileSync(ca.caFile, 'utf8'),
    keptReceivers: 4,
  });
});

afterAll(async () => {
  await sender?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => server?.close(() => r()));
  ca?.remove();
});

const send = () => sender.send(url, { 'content-type': 'application/json' }, '{"id":"evt_1"}');

it.each([200, 503])(
  'a %i whose body trickles is recorded once BODY_WAIT_MS has passed, with what arrived',
  async (answered) => {
    status = answered;
    const started = Date.now();
    const r = await send();
    const took = Date.now() - started;
    expect(r).toMatchObject({ ok: answered === 200, status: answered, timedOut: false });
    expect(r.response).toMatchObject({ truncated: true, bytes: -1 });
    expect(r.response?.body).toMatch(/^accepted:\.*$/);
    expect(took).toBeGreaterThanOrEqual(BODY_WAIT_MS - 50);
    expect(took).toBeLessThan(BODY_WAIT_MS + 2_000);
  },
);
