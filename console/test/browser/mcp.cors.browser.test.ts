// In a real browser (Debian's Chromium via playwright-core): a page served on one loopback origin
// calls the gateway's POST /api/mcp on another with fetch(), as a browser MCP tool (the MCP
// Inspector) does. The gateway allows the first page's exact origin (MCP_ALLOWED_ORIGINS), so the
// preflight passes and tools/list's JSON reaches the page; a page on a second origin, not on the
// list, gets a network error (the browser withholds the answer), as it should. Before the gateway
// answered CORS, the allowed page got the network error too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { makeBrandWithKey, startStack, type Stack } from '@brand/testkit';
import { launchChromium } from './browserKit';

/** A page server on 127.0.0.1: one blank HTML page, the origin the calls come from. */
async function pageServer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>MCP page</title><body></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let stack: Stack;
let browser: Browser;
let allowed: Awaited<ReturnType<typeof pageServer>>;
let refused: Awaited<ReturnType<typeof pageServer>>;
let key: string;

beforeAll(async () => {
  allowed = await pageServer();
  refused = await pageServer();
  stack = await startStack({ gatewayEnv: { MCP_ALLOWED_ORIGINS: allowed.origin } });
  key = (await makeBrandWithKey(stack.admin, { tier: 'plus' })).secret;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await allowed?.close();
  await refused?.close();
});

/** fetch() in a page on `origin`: tools/list with the key, as a browser MCP client sends it. */
async function toolsListFrom(origin: string): Promise<unknown> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ url, key }) => {
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${key}`,
              'Content-Type': 'application/json',
              Accept: 'application/json, text/event-stream',
              'MCP-Protocol-Version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          });
          return {
            status: res.status,
            requestId: res.headers.get('x-request-id'),
            rateLimit: res.headers.get('ratelimit'),
            body: (await res.json()) as unknown,
          };
        } catch (err) {
          return { networkError: String(err) };
        }
      },
      { url: `${stack.gateway.url}/api/mcp`, key },
    );
  } finally {
    await page.close();
  }
}

it('a page on an allowed origin calls tools/list and reads the JSON and exposed headers', async () => {
  const answer = (await toolsListFrom(allowed.origin)) as {
    status: number;
    requestId: string | null;
    rateLimit: string | null;
    body: { result?: { tools?: Array<{ name: string }> } };
  };
  expect(answer).toMatchObject({ status: 200 });
  expect(answer.body.result?.tools?.map((t) => t.name)).toContain('list_campaigns');
  expect(answer.requestId).toBeTruthy();
  expect(answer.rateLimit).toMatch(/^"brand";r=\d+;t=\d+$/);
});

it('a page on an origin off the list gets no answer (the browser withholds it)', async () => {
  const answer = (await toolsListFrom(refused.origin)) as { networkError?: string };
  expect(answer.networkError).toMatch(/Failed to fetch/);
});
