// Reading is separate from signing in (docs/contract.md#scope-and-rules): the gateway never accepts
// a console session, not as a cookie (it never reads cookies), not as a Bearer key.
import {
  createConsoleClient,
  randomHex,
  startStack,
  type ConsoleClient,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let consoleClient: ConsoleClient;

beforeAll(async () => {
  stack = await startStack();
  consoleClient = createConsoleClient(stack.records.address);
});
afterAll(async () => {
  consoleClient?.close();
  await stack?.close();
});

it('refuses a valid console session, as a cookie or as a Bearer token, with 401', async () => {
  const { brand, owner } = await stack.admin.createBrand({
    tier: 'plus',
    verified: true,
    ownerEmail: `owner-${randomHex(4)}@brand.test`,
  });
  const { sessionToken } = await consoleClient.signIn(owner.email);
  // The session is valid: the console would act on the brand with it.
  const acting = await consoleClient.actAs(sessionToken, brand.id);
  expect(acting.resolved.brand?.id).toBe(brand.id);

  const url = `${stack.gateway.url}/api/v1/campaigns`;
  const cookie = `__Host-console_session=${sessionToken}`;
  const asCookie = await fetch(url, { headers: { cookie } });
  expect(asCookie.status).toBe(401);
  expect(((await asCookie.json()) as { error: { code: string } }).error.code).toBe('missing_key');

  const asBearer = await fetch(url, { headers: { authorization: `Bearer ${sessionToken}` } });
  expect(asBearer.status).toBe(401);
  expect(((await asBearer.json()) as { error: { code: string } }).error.code).toBe('invalid_key');

  const mcp = await fetch(`${stack.gateway.url}/api/mcp`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(mcp.status).toBe(401);
});
