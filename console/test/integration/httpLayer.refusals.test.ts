// The console serves on the same server as the gateway (createPublicHttpServer): what Node's HTTP
// layer refuses is the contract's JSON error with a request id and Connection: close, not Node's
// empty answer (the outside probe, 2026-11-30: a SCIM filter in a very long URL, a big header).
// Its pages are HTML, but these are protocol-level refusals no page is rendered for.
import { createConnection } from 'node:net';
import { sendRaw } from '@brand/testkit';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({ signInOnly: true });
}, 120_000);
afterAll(() => cs?.close());

/** Writes `raw` on a fresh connection and reads until the console closes it. */
function exchange(raw: string): Promise<{ head: string; body: unknown }> {
  const url = new URL(cs.url);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () =>
      socket.write(raw),
    );
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no answer: ${JSON.stringify(text)}`));
      let body: unknown = text.slice(split + 4);
      try {
        body = JSON.parse(body as string);
      } catch {
        // left as text: the assertion shows it
      }
      resolve({ head: text.slice(0, split), body });
    });
  });
}

it.each([
  [
    'a header over 16 KB',
    (h: string) => `GET /sign-in HTTP/1.1\r\nHost: ${h}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
    'headers_too_large',
  ],
  [
    'a URL over 16 KB',
    (h: string) => `GET /scim/v2/Users?filter=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${h}\r\n\r\n`,
    431,
    'headers_too_large',
  ],
  [
    'an unknown method',
    (h: string) => `FROB /sign-in HTTP/1.1\r\nHost: ${h}\r\n\r\n`,
    400,
    'malformed_request',
  ],
  ['HTTP/1.1 without Host', () => 'GET /sign-in HTTP/1.1\r\n\r\n', 400, 'malformed_request'],
  [
    'Expect: foo',
    (h: string) => `GET /sign-in HTTP/1.1\r\nHost: ${h}\r\nExpect: foo\r\n\r\n`,
    417,
    'expectation_failed',
  ],
])('%s is a JSON error with a request id', async (_, raw, status, code) => {
  const answer = await exchange(raw(new URL(cs.url).host));
  expect(answer.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(answer.head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8(\r\n|$)/i);
  expect(answer.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
  const requestId = /\r\nx-request-id: (req_\w{20})(\r\n|$)/i.exec(answer.head)?.[1];
  expect(requestId).toBeDefined();
  expect(answer.body).toEqual({
    error: { code, message: expect.any(String) as unknown, request_id: requestId },
  });
});

// RFC 9112 3.2.2: a server must accept a request target in absolute form; the console answered
// it 404 (a review, 2026-11-30).
it('serves an absolute-form target as its origin form', async () => {
  const host = new URL(cs.url).host;
  const get = (path: string) => sendRaw(cs.url, 'GET', path, ['Host', host]);
  const [plain, absolute] = await Promise.all([get('/sign-in'), get(`http://${host}/sign-in`)]);
  expect([plain.status, absolute.status]).toEqual([200, 200]);
  expect(absolute.body).toContain('action="/sign-in"');
});
