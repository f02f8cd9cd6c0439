import { createConnection } from 'node:net';
import { makeBrandWithKey, sendRaw, startStack, waitFor, type Stack } from '@brand/testkit';

// What Node's HTTP layer refuses before a route runs (its parser, its deadlines, an unknown
// Expect, HTTP/1.1 without Host) is answered as the contract's JSON error, with X-Request-Id and
// Connection: close, and logged. The outside probe (2026-11-30) found each an empty body with no
// request id and no log line, and a request cut by the body deadline logged as status 200.

const BODY_TIMEOUT_MS = 2_000;
let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000',
      BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    },
  });
  key = (await makeBrandWithKey(stack.admin, { tier: 'enterprise' })).secret;
});

/** The gateway's JSON log lines so far (anything else it printed left out). */
function jsonLogs(): Record<string, unknown>[] {
  return stack.gateway.logs().flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
afterAll(() => stack?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  ms: number;
}

/** Writes `raw` on a fresh connection and reads until the server closes it. */
function exchange(raw: string | Buffer): Promise<RawAnswer> {
  const url = new URL(stack.gateway.url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () =>
      socket.write(raw),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    // a connection left open is a failure too (Node's own 417 kept it)
    socket.setTimeout(10_000, () => socket.destroy());
    // the server destroys the connection after its answer: a reset may follow what it wrote
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) {
        reject(new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const bodyText = text.slice(split + 4);
      let body: unknown = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // left as text: the assertion shows it
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]),
        headers,
        body,
        ms: Date.now() - started,
      });
    });
  });
}

/**
 * A refusal as the HTTP layer writes it: `body` (given the answer's request id) with JSON's
 * Content-Type and Connection: close; the request id returned.
 */
function expectRefusal(
  answer: RawAnswer,
  status: number,
  body: (requestId: string | undefined) => unknown,
): string {
  const requestId = answer.headers['x-request-id'];
  expect({
    status: answer.status,
    type: answer.headers['content-type'],
    connection: answer.headers.connection,
    body: answer.body,
  }).toEqual({
    status,
    type: 'application/json; charset=utf-8',
    connection: 'close',
    body: body(requestId),
  });
  expect(requestId).toMatch(/^req_[A-Za-z0-9]{20}$/);
  return requestId ?? '';
}

/** The contract's JSON error. */
const expectJsonError = (answer: RawAnswer, status: number, code: string): string =>
  expectRefusal(answer, status, (requestId) => ({
    error: { code, message: expect.any(String) as unknown, request_id: requestId },
  }));

/**
 * The assistant endpoint's every answer is JSON-RPC (docs/contract.md#assistant-endpoint): a
 * refusal of the HTTP layer on its path too, with the REST code and request id in error.data.
 */
const expectRpcError = (answer: RawAnswer, status: number, code: string): string =>
  expectRefusal(answer, status, (requestId) => ({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: expect.any(String) as unknown,
      data: { code, request_id: requestId },
    },
  }));

/** The gateway's log lines (JSON) that name `requestId`. */
async function logLinesOf(requestId: string): Promise<Record<string, unknown>[]> {
  return waitFor(
    () => {
      const lines = jsonLogs().filter((l) => l.request_id === requestId);
      return lines.length > 0 ? lines : undefined;
    },
    { what: `a log line naming ${requestId}` },
  );
}

const host = () => new URL(stack.gateway.url).host;

describe('parser refusals', () => {
  it.each([
    [
      'a header over 16 KB',
      () =>
        `GET /api/v1/campaigns HTTP/1.1\r\nHost: ${host()}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'a URL over 16 KB',
      () => `GET /api/v1/campaigns?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'Transfer-Encoding with Content-Length',
      () =>
        `POST /api/mcp HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      'malformed_request',
    ],
    [
      'an unknown method',
      () => `FROB /api/v1/campaigns HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
      400,
      'malformed_request',
    ],
    [
      'a bogus Content-Length',
      () => `POST /api/mcp HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: abc\r\n\r\n`,
      400,
      'malformed_request',
    ],
    [
      'raw non-ASCII in the target',
      () =>
        Buffer.concat([
          Buffer.from('GET /api/v1/caf'),
          Buffer.from('é', 'utf8'),
          Buffer.from(` HTTP/1.1\r\nHost: ${host()}\r\n\r\n`),
        ]),
      400,
      'malformed_request',
    ],
  ])('%s: answered as JSON with a request id, and logged', async (_, raw, status, code) => {
    const requestId = expectJsonError(await exchange(raw()), status, code);
    expect(await logLinesOf(requestId)).toEqual([
      expect.objectContaining({ level: 'warn', code, status }),
    ]);
  });
});

describe('refusals of a parsed request the routes never see', () => {
  it('HTTP/1.1 without Host is 400 malformed_request', async () => {
    const requestId = expectJsonError(
      await exchange('GET /api/v1/campaigns HTTP/1.1\r\n\r\n'),
      400,
      'malformed_request',
    );
    expect(await logLinesOf(requestId)).toEqual([
      expect.objectContaining({ level: 'warn', code: 'malformed_request', status: 400 }),
    ]);
  });

  it('on the assistant endpoint, each is a JSON-RPC error', async () => {
    expectRpcError(
      await exchange('POST /api/mcp HTTP/1.1\r\nContent-Length: 0\r\n\r\n'),
      400,
      'malformed_request',
    );
    expectRpcError(
      await exchange(`POST /api/mcp?x=1 HTTP/1.1\r\nHost: ${host()}\r\nExpect: foo\r\n\r\n`),
      417,
      'expectation_failed',
    );
    // another path that starts with the same letters is not the endpoint
    expectJsonError(
      await exchange(`GET /api/mcpx HTTP/1.1\r\nHost: ${host()}\r\nExpect: foo\r\n\r\n`),
      417,
      'expectation_failed',
    );
  });

  it('Expect: foo is 417 expectation_failed', async () => {
    const requestId = expectJsonError(
      await exchange(`GET /api/v1/campaigns HTTP/1.1\r\nHost: ${host()}\r\nExpect: foo\r\n\r\n`),
      417,
      'expectation_failed',
    );
    expect(await logLinesOf(requestId)).toEqual([
      expect.objectContaining({ level: 'warn', code: 'expectation_failed', status: 417 }),
    ]);
  });

  // The outside conformance probe (2026-11-30): the connection was closed unanswered.
  it('CONNECT is 405 method_not_allowed with an empty Allow: no proxy here', async () => {
    const answer = await exchange(`CONNECT ${host()} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`);
    const requestId = expectJsonError(answer, 405, 'method_not_allowed');
    expect(answer.headers.allow).toBe('');
    expect(await logLinesOf(requestId)).toEqual([
      expect.objectContaining({ level: 'warn', code: 'method_not_allowed', status: 405 }),
    ]);
  });
});

describe('deadlines', () => {
  it('headers that stall are 408 request_timeout', async () => {
    const answer = await exchange(`GET /api/v1/campaigns HTTP/1.1\r\nHost: ${host()}\r\n`);
    const requestId = expectJsonError(answer, 408, 'request_timeout');
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_500);
    expect(await logLinesOf(requestId)).toEqual([
      expect.objectContaining({ level: 'warn', code: 'request_timeout', status: 408 }),
    ]);
  });

  it('on the assistant endpoint, a body that stalls is a JSON-RPC 408 request_timeout, and its access line says 408, not 200', async () => {
    const answer = await exchange(
      `POST /api/mcp HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\n` +
        `Content-Length: 100\r\n\r\n{"jsonrpc":`,
    );
    expectRpcError(answer, 408, 'request_timeout');
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_500);
    // the access line has the request id the prelude gave the request it cut
    const access = await waitFor(() =>
      jsonLogs().find((l) => l.method === 'POST' && l.path === '/api/mcp' && l.level === 'warn'),
    );
    expect(access).toMatchObject({ status: 408, code: 'request_timeout' });
  });
});

// RFC 9112 3.2.2: a server must accept a request target in absolute form (a client configured
// with the API as its proxy sends one). It answered 404 not_found, charged to the brand (the
// outside probe and a hostile review, 2026-11-30).
describe('what the HTTP layer accepts', () => {
  /** A GET of `path` as it is written on the request line, with the brand's key. */
  const ask = (path: string) =>
    sendRaw(stack.gateway.url, 'GET', path, [
      'Host',
      new URL(stack.gateway.url).host,
      'Authorization',
      `Bearer ${key}`,
    ]);

  it('serves an absolute-form target as its origin form, and refuses one that is no URL', async () => {
    const origin = new URL(stack.gateway.url);
    const plain = await ask('/api/v1/campaigns?limit=2');
    const absolute = await ask(`http://${origin.host}/api/v1/campaigns?limit=2`);
    const upper = await ask(`HTTP://${origin.host}/api/v1/campaigns?limit=2`);
    const broken = await ask('http://[::1/api/v1/campaigns');
    const page = (a: { body: string }) =>
      (JSON.parse(a.body) as { data: { id: string }[] }).data.map((r) => r.id);
    expect([plain, absolute, upper].map((a) => a.status)).toEqual([200, 200, 200]);
    expect(page(absolute)).toEqual(page(plain));
    expect(page(upper)).toEqual(page(plain));
    expect([
      broken.status,
      (JSON.parse(broken.body) as { error: { code: string } }).error.code,
    ]).toEqual([400, 'malformed_request']);
  });

  it('reads a target with a fragment as its path does: the fragment is dropped', async () => {
    // no client sends one (fetch and curl strip it); one sent by hand glued itself to the last
    // query value (?limit=2#x: 400 invalid_parameter) while /links/<id>#x was served (a hostile
    // review, 2026-11-30)
    const [plain, fragment] = await Promise.all([
      ask('/api/v1/campaigns?limit=2'),
      ask('/api/v1/campaigns?limit=2#frag'),
    ]);
    expect([plain.status, fragment.status]).toEqual([200, 200]);
    expect(JSON.parse(fragment.body)).toEqual(JSON.parse(plain.body));
  });
});
