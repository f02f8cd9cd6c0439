import { randomUUID } from 'node:crypto';
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
