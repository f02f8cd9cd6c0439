import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { PLAN_LIMITS, PLATFORMS } from '@brand/shared/plans';
import { startStack, type Stack } from '@brand/testkit';
import { MAX_BODY_BYTES } from '../../src/endpoints/v1CampaignPlans/input';
import { ApiClient } from '../support/apiClient';
import { LATEST_VERSION, McpHttp, type RpcResponse, type ToolResult } from '../support/mcpHttp';
import { makePlanBrand, PLANS_PATH, type PlanBrand, type PlanOut } from '../support/plans';

// The largest valid plan, in the largest JSON a client can honestly write it as, is taken over
// REST and MCP: every text field at its limit (characters: code points), every character an
// astral one escaped as its surrogate pair (\uD83D\uDE00, 12 bytes), every other character of
// the body escaped too, with Python's json.dumps separators (", ", ": "). It is 532,184 bytes.

let stack: Stack;
let brand: PlanBrand;

beforeAll(async () => {
  stack = await startStack({ plans: true });
  brand = await makePlanBrand(stack);
});
afterAll(() => stack?.close());

/** Every UTF-16 unit of `s` as \uXXXX, in quotes. */
const escaped = (s: string): string =>
  `"${Array.from({ length: s.length }, (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;

/** `count` astral characters (two UTF-16 units each), the first one `first`. */
const astral = (count: number, first = 0x1f600): string =>
  String.fromCodePoint(first) + '😀'.repeat(count - 1);

/** The worst case: the largest valid plan, every character escaped. */
function worstCaseBody(): string {
  const value = (v: string | string[]): string =>
    Array.isArray(v) ? `[${v.map(escaped).join(', ')}]` : escaped(v);
  const fields: Array<[string, string | string[]]> = [
    ['request_id', randomUUID()],
    ['title', astral(PLAN_LIMITS.title)],
    ['goal', astral(PLAN_LIMITS.goal)],
    ['campaign_type', 'affiliate'],
    ['planned_for', '2100-12-31'],
    ['review_on', '2100-12-30'],
    ['planning_budget', '100000000.00'],
    ['summary', astral(PLAN_LIMITS.summary)],
    ['brief', astral(PLAN_LIMITS.brief)],
    [
      'requirements',
      Array.from({ length: PLAN_LIMITS.requirements }, (_, i) =>
        astral(PLAN_LIMITS.requirement, 0x1f300 + i),
      ),
    ],
    ['platforms', [...PLATFORMS]],
    ['notes', astral(PLAN_LIMITS.notes)],
  ];
  return `{${fields.map(([k, v]) => `${escaped(k)}: ${value(v)}`).join(', ')}}`;
}

it('the worst case is under the limit', () => {
  const body = worstCaseBody();
  expect(Buffer.byteLength(body)).toBe(532_184);
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
  const parsed = JSON.parse(body) as { title: string; requirements: string[] };
  expect([[...parsed.title].length, [...(parsed.requirements[49] ?? '')].length]).toEqual([
    200, 500,
  ]);
});

it('REST: the worst case escaped is a new plan', async () => {
  const res = await new ApiClient(stack.gateway.url).post<PlanOut>(PLANS_PATH, {
    key: brand.prepareKey,
    headers: { 'Content-Type': 'application/json' },
    rawBody: worstCaseBody(),
  });
  expect(res.status).toBe(201);
  expect(res.body.title).toBe(astral(PLAN_LIMITS.title));
});

it('MCP: the worst case escaped, in its tools/call envelope, is a plan', async () => {
  const mcp = new McpHttp(new ApiClient(stack.gateway.url), {
    key: brand.prepareKey,
    protocolVersion: LATEST_VERSION,
  });
  const rawBody =
    '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' +
    `{"name": "prepare_campaign_plan", "arguments": ${worstCaseBody()}}}`;
  const res = await mcp.post<RpcResponse<ToolResult>>(undefined, { rawBody });
  expect(res.status).toBe(200);
  const result = res.body.result;
  expect(result?.isError).toBeFalsy();
  expect((result?.structuredContent as PlanOut | undefined)?.status).toBe('pending');
});

/**
 * The answer to a request head declaring a `contentLength`-byte body, none of which is sent:
 * its first line and body, and how long it took to come. Gives up after 8 s.
 */
function headOnly(
  path: string,
  contentLength: number | 'chunked',
): Promise<{ head: string; body: string; ms: number }> {
  const { hostname, port } = new URL(stack.gateway.url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ head: head.split('\r\n')[0] ?? '', body, ms: Date.now() - started });
    };
    const timer = setTimeout(done, 8_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\r\n\r\n{') && text.trimEnd().endsWith('}')) done();
    });
    socket.on('end', done);
    socket.on('error', done);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${brand.prepareKey}\r\n` +
        'Content-Type: application/json\r\n' +
        (contentLength === 'chunked'
          ? // one chunk over the limit, and the body never ends
            `Transfer-Encoding: chunked\r\n\r\n${(MAX_BODY_BYTES + 1).toString(16)}\r\n${'x'.repeat(MAX_BODY_BYTES + 1)}\r\n`
          : `Content-Length: ${contentLength}\r\n\r\n`),
    );
  });
}

// The outside conformance probe (2026-11-30): a Content-Length over the limit was not refused
// until the whole declared body had been read off the socket (body-parser drains it first), so a
// client waiting for the answer got 408 request_timeout at the 10 s body deadline, not 413.
// A chunked body that goes on past the limit was read until the deadline too.
it.each([MAX_BODY_BYTES + 1, 1_000_000_000, 'chunked' as const])(
  'a body declared or sent over the limit (%s) is 413 at once, the rest unread, over REST and MCP',
  async (contentLength) => {
    const rest = await headOnly(PLANS_PATH, contentLength);
    expect(rest.head).toBe('HTTP/1.1 413 Payload Too Large');
    expect(JSON.parse(rest.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(rest.ms).toBeLessThan(2_000);
    const mcp = await headOnly('/api/mcp', contentLength);
    expect(mcp.head).toBe('HTTP/1.1 413 Payload Too Large');
    expect(JSON.parse(mcp.body)).toMatchObject({
      error: { code: -32600, data: { code: 'payload_too_large' } },
    });
    expect(mcp.ms).toBeLessThan(2_000);
  },
);
