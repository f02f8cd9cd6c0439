// A real Sender against a real TLS receiver that answers with interim (1xx) responses before
// its final one. RFC 9110 15.2: a client must parse a 1xx it did not expect. undici (7.x) reads
// past 102 and 103 but destroys the connection at a 100 it did not ask for (client-h1.js,
// onHeadersComplete; nodejs/undici#197, open, "wontfix"), so the final answer after an unsolicited
// `100 Continue` cannot be read. It was recorded as "closed the connection before answering",
// which is not what happened: the receiver answered, and may well have processed the event.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { createTestCa, type TestCa } from '@brand/testkit';
import { Sender } from './sender';

let ca: TestCa;
let server: tls.Server;
let url: string;
let sender: Sender;
/** What the receiver writes after reading a request's head and body. */
let answer = '';

beforeAll(async () => {
  ca = createTestCa();
  server = tls.createServer(ca.tls, (socket) => {
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      const head = seen.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(seen.slice(0, head))?.[1] ?? '0');
      if (seen.length < head + 4 + length) return;
      seen = '';
      socket.write(answer);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
  sender = new Sender({
    allowLoopback: true,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 3_000,
    extraCa: readFileSync(ca.caFile, 'utf8'),
    keptReceivers: 4,
  });
});

afterAll(async () => {
  await sender?.close();
  await new Promise<void>((r) => server?.close(() => r()));
  ca?.remove();
});

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const send = () => sender.send(url, { 'content-type': 'application/json' }, '{"id":"evt_1"}');

describe('an interim response before the final one', () => {
  it('reads past 102 Processing and 103 Early Hints: the 200 is recorded ok', async () => {
    for (const interim of ['HTTP/1.1 102 Processing\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\n\r\n']) {
      answer = interim + OK;
      expect(await send()).toMatchObject({ ok: true, status: 200, errorClass: undefined });
    }
  });

  it('says so when an unsolicited 100 Continue hides the answer: not a connection closed unanswered', async () => {
    answer = `HTTP/1.1 100 Continue\r\n\r\n${OK}`;
    const r = await send();
    expect(r).toMatchObject({
      ok: false,
      status: undefined,
      errorClass: 'unexpected_continue',
      timedOut: false,
    });
    expect(r.error).toBe(
      `localhost:${new URL(url).port} answered 100 Continue, which was not asked for ` +
        '(no Expect: 100-continue is sent); the sender cannot read the answer after it',
    );
    expect(r.excerpt).toBe(r.error);
    // the connection is not left broken: the next answer without it is read
    answer = OK;
    expect(await send()).toMatchObject({ ok: true, status: 200 });
  });
});
