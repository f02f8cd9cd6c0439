import { createConnection } from 'node:net';
import { gzipSync } from 'node:zlib';
import { planBody, startStack, type Stack } from '@brand/testkit';
import { makePlanBrand, PLANS_PATH, type PlanBrand } from '../support/plans';

// The campaign-plans POST reads its body on plain node:http (its lean path): the refusals come in
// the documented order, and the body is read as express's JSON parser read it: the key (401) and
// its permission (403) before the body is parsed, then Content-Type (415), size (413), JSON (400),
// compression, and the path matched in any case with an optional trailing slash; every other method
// is 405 with Allow: POST.

let stack: Stack;
let brand: PlanBrand;

beforeAll(async () => {
  stack = await startStack({
    plans: true,
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
  brand = await makePlanBrand(stack);
});
afterAll(() => stack?.close());

async function post(
  opts: {
    key?: string;
    body?: string | Blob;
    type?: string;
    encoding?: string;
    path?: string;
    method?: string;
  } = {},
): Promise<{ status: number; code: string | undefined; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.type) headers['content-type'] = opts.type;
  if (opts.encoding) headers['content-encoding'] = opts.encoding;
  const res = await fetch(`${stack.gateway.url}${opts.path ?? PLANS_PATH}`, {
    method: opts.method ?? 'POST',
    headers,
    body: opts.body,
  });
  const text = await res.text();
  const code = text ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
  return { status: res.status, code, headers: res.headers };
}

const json = 'application/json';
const valid = () => JSON.stringify(planBody());

it('checks the key and its permission before reading the body', async () => {
  expect(await post({ body: '{not json', type: json })).toMatchObject({
    status: 401,
    code: 'missing_key',
  });
  expect(await post({ key: brand.readKey, body: '{not json', type: json })).toMatchObject({
    status: 403,
    code: 'insufficient_permission',
  });
  expect(await post({ key: brand.readKey, body: 'x'.repeat(600_000), type: json })).toMatchObject({
    status: 403,
    code: 'insufficient_permission',
  });
});

it('answers a body it cannot read with a 4xx and a stable code', async () => {
  const key = brand.prepareKey;
  expect(await post({ key, body: valid(), type: 'text/plain' })).toMatchObject({
    status: 415,
    code: 'unsupported_media_type',
  });
  expect(await post({ key, body: valid() })).toMatchObject({
    status: 415,
    code: 'unsupported_media_type',
  });
  expect(await post({ key, body: valid(), type: `${json}; charset=latin1` })).toMatchObject({
    status: 415,
    code: 'unsupported_media_type',
  });
  expect(await post({ key, body: valid(), type: json, encoding: 'compress' })).toMatchObject({
    status: 415,
    code: 'unsupported_media_type',
  });
  expect(await post({ key, body: '{"request_id": ', type: json })).toMatchObject({
    status: 400,
    code: 'malformed_request',
  });
  expect(await post({ key, body: 'x'.repeat(600_000), type: json })).toMatchObject({
    status: 413,
    code: 'payload_too_large',
  });
  // any JSON value is read (not only objects and arrays); the input's schema refuses it
  expect(await post({ key, body: '"a plan"', type: json })).toMatchObject({
    status: 400,
    code: 'validation_failed',
  });
  expect(await post({ key, body: '', type: json })).toMatchObject({
    status: 400,
    code: 'validation_failed',
  });
});

// The outside probe (2026-11-30): a title sent as the bytes "caf\xE9" (Latin-1) under a UTF-8
// JSON type was read with U+FFFD in place of the byte and the plan stored ("caf\uFFFD").
it('answers a body that is not UTF-8 400 malformed_request, as sent or once inflated, and stores nothing', async () => {
  const key = brand.prepareKey;
  const plan = planBody();
  const [before, after] = JSON.stringify({ ...plan, title: 'caf\u0000' }).split('\\u0000');
  const latin1 = Buffer.concat([Buffer.from(before!), Buffer.from([0xe9]), Buffer.from(after!)]);
  expect(await post({ key, body: new Blob([latin1]), type: json })).toMatchObject({
    status: 400,
    code: 'malformed_request',
  });
  expect(
    await post({ key, body: new Blob([gzipSync(latin1)]), type: json, encoding: 'gzip' }),
  ).toMatchObject({ status: 400, code: 'malformed_request' });
  // nothing was stored under the request id: the same plan in UTF-8 is new (not a replay or a conflict)
  expect(
    await post({ key, body: JSON.stringify({ ...plan, title: 'caf\u00e9' }), type: json }),
  ).toMatchObject({ status: 201 });
});

// A review (2026-11-29): a JSON Content-Type with no body at all (no Content-Length, no
// Transfer-Encoding: fetch never sends that, a hand-written client may) was 415 "Content-Type must
// be application/json", naming what was right instead of what was missing.
it('answers a JSON request without a body 400 malformed_request, saying the body is missing', async () => {
  const url = new URL(stack.gateway.url);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () =>
      socket.write(
        `POST ${PLANS_PATH} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${brand.prepareKey}\r\n` +
          `Content-Type: application/json\r\nConnection: close\r\n\r\n`,
      ),
    );
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  expect(raw).toMatch(/^HTTP\/1\.1 400 /);
  expect(raw).toContain('"code":"malformed_request"');
  expect(raw).toContain('The request has no body');
});

// The outside probe (2026-11-30): a body that is not what its Content-Encoding says was 400 with
// a message about "the URL and its percent-encoding", sending the client to the wrong place.
it('answers a body that is not in its Content-Encoding 400 malformed_request, naming the encoding', async () => {
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const res = await fetch(`${stack.gateway.url}${PLANS_PATH}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${brand.prepareKey}`,
        'content-type': json,
        'content-encoding': encoding,
      },
      body: valid(),
    });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect({ encoding, status: res.status, code: body.error.code }).toEqual({
      encoding,
      status: 400,
      code: 'malformed_request',
    });
    expect(body.error.message).toMatch(/Content-Encoding/);
    expect(body.error.message).not.toMatch(/URL/);
  }
});

it('reads a compressed body, and the path in any case with a trailing slash', async () => {
  const key = brand.prepareKey;
  expect(
    await post({
      key,
      body: new Blob([new Uint8Array(gzipSync(valid()))]),
      type: `${json}; charset=utf-8`,
      encoding: 'gzip',
    }),
  ).toMatchObject({ status: 201 });
  expect(await post({ key, body: valid(), type: json, path: `${PLANS_PATH}/` })).toMatchObject({
    status: 201,
  });
  expect(
    await post({ key, body: valid(), type: json, path: PLANS_PATH.toUpperCase() }),
  ).toMatchObject({ status: 201 });
});

// The outside conformance probe (2026-11-30): charset=utf8, which the assistant endpoint reads
// as UTF-8 (and the gateway's own Content-Type check admits), was 415 here, "The request body
// must be UTF-8 JSON.", for a UTF-8 body.
it('reads a body labelled charset=utf8 as UTF-8, as the assistant endpoint does', async () => {
  const key = brand.prepareKey;
  for (const charset of ['utf8', 'UTF8', '"utf8"']) {
    const res = await post({ key, body: valid(), type: `${json}; charset=${charset}` });
    expect([charset, res.status]).toEqual([charset, 201]);
  }
  // a UTF-8 byte order mark before the JSON is read on both endpoints too
  expect(await post({ key, body: `\uFEFF${valid()}`, type: json })).toMatchObject({ status: 201 });
});

it('answers every other method 405 with Allow: POST', async () => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
    const res = await post({ key: brand.prepareKey, method });
    expect(res).toMatchObject({ status: 405, code: 'method_not_allowed' });
    expect(res.headers.get('allow')).toBe('POST');
  }
});
