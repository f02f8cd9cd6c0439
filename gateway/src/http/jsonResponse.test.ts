import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendJson, type JsonParts } from './jsonResponse';

let server: Server;
let answer: () => JsonParts | string;
let written: JsonParts | string | undefined;

beforeAll(async () => {
  server = createServer((_req, res) => {
    written = answer();
    sendJson(res, 200, written);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(): Promise<Response> {
  const { port } = server.address() as AddressInfo;
  return fetch(`http://127.0.0.1:${port}/`);
}

describe('sendJson', () => {
  it('writes the parts in order with an exact Content-Length, then empties the array', async () => {
    answer = () => ['{"a":', Buffer.from('[1,"é"]'), '}'];
    const res = await get();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"a":[1,"é"]}')));
    expect(await res.text()).toBe('{"a":[1,"é"]}');
    // whoever still holds the array (a resolved promise) holds no page bytes
    expect(written).toEqual([]);
  });

  it('writes a string body as it is', async () => {
    answer = () => '{"b":true}';
    const res = await get();
    expect(await res.text()).toBe('{"b":true}');
    expect(res.headers.get('content-length')).toBe('10');
  });
});
