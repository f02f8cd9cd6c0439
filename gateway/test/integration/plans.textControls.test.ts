import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { planBody, startStack, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import { errorOf, type ErrorBody, type ToolResult } from '../support/mcpHttp';
import { makePlanBrand, postPlan, type PlanBrand } from '../support/plans';

// A plan's text fields are text of several lines (@brand/shared/text): tabs and line breaks are
// fine, control characters are not, C1 controls (U+0080-U+009F, NEL U+0085 among them) included
// since 2026-11-30, and neither is a lone surrogate, which the gRPC call to the plans service
// would carry as U+FFFD. Over REST and MCP alike, the refusal is 400 validation_failed naming
// each field in plain words, and nothing is stored.

let stack: Stack;
let api: ApiClient;
let brand: PlanBrand;
let client: Client | undefined;

beforeAll(async () => {
  stack = await startStack({ plans: true });
  api = new ApiClient(stack.gateway.url);
  brand = await makePlanBrand(stack);
});
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const CONTROL = 'must not contain control characters.';
const HALF =
  'must not contain half of a character (an unpaired UTF-16 surrogate, such as half an emoji).';
const broken = () =>
  planBody({
    title: 'Launch\u0085day',
    brief: 'Line one\nLine two \u009b2J',
    requirements: ['Tag the brand', 'Logo\u0080first'],
    notes: 'Private \ud800',
  });
const expectedDetails = [
  { field: 'title', message: CONTROL },
  { field: 'brief', message: CONTROL },
  { field: 'requirements.1', message: CONTROL },
  { field: 'notes', message: HALF },
];

async function stored(requestId: unknown): Promise<number> {
  const { rowCount } = await stack.db.pool.query(
    'select 1 from plans.plans where request_id = $1',
    [requestId],
  );
  return rowCount ?? 0;
}

it('refuses C1 controls and a lone surrogate in a REST body, field by field, storing nothing', async () => {
  const body = broken();
  const res = await postPlan<ErrorBody>(api, brand.prepareKey, body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.details).toEqual(expectedDetails);
  expect(await stored(body.request_id)).toBe(0);
  // tab, LF and CR stay allowed
  const fine = planBody({ brief: 'Line one\r\n\tLine two' });
  expect((await postPlan(api, brand.prepareKey, fine)).status).toBe(201);
});

it('refuses them in prepare_campaign_plan over MCP alike', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${brand.prepareKey}` } },
  });
  client = new Client({ name: 'text-controls-it', version: '1.0.0' });
  await client.connect(transport);
  const body = broken();
  const result = (await client.callTool({
    name: 'prepare_campaign_plan',
    arguments: body,
  })) as ToolResult;
  const { error } = errorOf(result);
  expect(error.code).toBe('validation_failed');
  expect(error.details).toEqual(expectedDetails);
  expect(await stored(body.request_id)).toBe(0);
});
