import { planBody, startStack, type Stack } from '@brand/testkit';
import { runCommonAuthTests } from '../support/commonAuthTests';

// Every authenticated route runs the same authentication suite.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    plans: true,
    gatewayEnv: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000' },
  });
});
afterAll(() => stack?.close());

const env = (): { stack: Stack; url: string } => ({ stack, url: stack.gateway.url });

runCommonAuthTests(
  {
    name: 'GET /api/v1/campaigns',
    method: 'GET',
    path: '/api/v1/campaigns',
    codeOf: (body) => (body as { error?: { code?: string } } | undefined)?.error?.code,
  },
  env,
);

runCommonAuthTests(
  {
    name: 'POST /api/mcp',
    method: 'POST',
    path: '/api/mcp',
    body: () => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_campaigns', arguments: { limit: 1 } },
    }),
    codeOf: (body) =>
      (body as { error?: { data?: { code?: string } } } | undefined)?.error?.data?.code,
  },
  env,
);

runCommonAuthTests(
  {
    name: 'POST /api/v1/campaign-plans',
    method: 'POST',
    path: '/api/v1/campaign-plans',
    body: () => planBody(),
    codeOf: (body) => (body as { error?: { code?: string } } | undefined)?.error?.code,
    permissions: ['campaigns:prepare'],
  },
  env,
);
