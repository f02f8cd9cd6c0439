import {
  createConsoleClient,
  makeBrandWithKey,
  randomHex,
  startGateway,
  startStack,
  waitFor,
  type BrandWithKey,
  type Stack,
} from '@brand/testkit';
import {
  UsageSurface,
  type GetUsageResponse,
  type RequestLogEntry,
} from '@brand/proto/access/v1/usage';

// Issue 26: usage per key and outcome, counted at each gateway off the request path, flushed
// in batches to records, adding up across two instances and a SIGTERM'd third; the request
// log holds each 401's owner-only reason and never a secret.

const FLUSH_MS = 250;
let stack: Stack;
let brand: BrandWithKey;
let second: { id: string; secret: string };
let revoked: { id: string; secret: string };
let testKey: { id: string; secret: string };
let rolled: { id: string; secret: string };
let busy: BrandWithKey;
let other: BrandWithKey;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await startStack({
    gateways: 2,
    gatewayEnv: { USAGE_FLUSH_INTERVAL_MS: String(FLUSH_MS), ACCESS_LOG: 'false' },
  });
  brand = await makeBrandWithKey(stack.admin, { keyName: 'Warehouse sync' });
  const more = (name: string, environment: 'live' | 'test' = 'live') =>
    stack.admin.createKey({
      brandId: brand.brand.id,
      actorEmail: brand.owner.email,
      name,
      environment,
    });
  const [k2, k3, kt] = await Promise.all([
    more('Reports'),
    more('Old sync'),
    more('Sandbox', 'test'),
  ]);
  second = { id: k2.key.id, secret: k2.secret };
  revoked = { id: k3.key.id, secret: k3.secret };
  testKey = { id: kt.key.id, secret: kt.secret };
  await stack.admin.revokeKey(revoked.id, brand.owner.email);
  // A rolled key past its expiry (what a roll with "now" leaves), replaced by the first key.
  const kr = await more('Rolled sync');
  rolled = { id: kr.key.id, secret: kr.secret };
  await stack.db.pool.query(
    "update api_keys set expires_at = now() - interval '1 second', replaced_by = $2 where id = $1",
    [rolled.id, brand.key.id],
  );
  busy = await makeBrandWithKey(stack.admin, { keyName: 'Busy' });
  other = await makeBrandWithKey(stack.admin, { keyName: 'Elsewhere' });
  await stack.admin.revokeKey(other.key.id, other.owner.email);
  secrets.push(
    rolled.secret,
    brand.secret,
    second.secret,
    revoked.secret,
    testKey.secret,
    busy.secret,
    other.secret,
  );
}, 60_000);
afterAll(() => stack?.close());

function send(
  gateway: number,
  path: string,
  opts: {
    key?: string;
    authorization?: string;
    headers?: Record<string, string>;
    method?: string;
    body?: unknown;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.authorization !== undefined) headers.Authorization = opts.authorization;
  else if (opts.key !== undefined) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers.Accept = 'application/json, text/event-stream';
  }
  return fetch(`${stack.gateways[gateway]!.url}${path}`, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
}

const listCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'list_campaigns', arguments: { limit: 2 } },
});

/** The window's counts summed per key, surface and outcome: "key|rest|2xx" → n. */
function totals(usage: GetUsageResponse): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of usage.keys) {
    const surface = k.surface === UsageSurface.USAGE_SURFACE_ASSISTANT ? 'assistant' : 'rest';
    out[`${k.key_id || 'none'}|${surface}|${k.outcome}`] = k.count;
  }
  return out;
}

async function usageOf(brandId: string): Promise<Record<string, number>> {
  return totals(
    await stack.admin.usage('getUsage', { brand_id: brandId, key_id: '', window: '24h' }),
  );
}

async function logOf(brandId: string): Promise<RequestLogEntry[]> {
  const res = await stack.admin.usage('listRequestLog', {
    brand_id: brandId,
    key_id: '',
    error_code: '',
    page_size: 200,
    page_token: '',
    since: '',
    until: '',
  });
  return res.entries;
}

it('counts every request per key and outcome across two gateways and a SIGTERM, and logs each 401 reason without a secret', async () => {
  // A busy brand spends its budget (60 a minute): REST 429s and one assistant 429.
  let limited = 0;
  for (let i = 0; i < 62; i += 1) {
    const res = await send(i % 2, '/api/v1/campaigns?limit=1', { key: busy.secret });
    if (res.status === 429) limited += 1;
    else expect(res.status).toBe(200);
  }
  expect(limited).toBe(2);
  const assistant429 = await send(0, '/api/mcp', { key: busy.secret, body: listCall(1) });
  expect(assistant429.status).toBe(429);
  expect(JSON.stringify(await assistant429.json())).toContain('rate_limited');

  // The brand: 200s and 304s through both gateways (this also ties the address to the brand).
  for (const g of [0, 1, 0, 1]) {
    expect((await send(g, '/api/v1/campaigns?limit=2', { key: brand.secret })).status).toBe(200);
  }
  const etag = (await send(0, '/api/v1/campaigns?limit=2', { key: brand.secret })).headers.get(
    'etag',
  )!;
  for (const g of [0, 1]) {
    const res = await send(g, '/api/v1/campaigns?limit=2', {
      key: brand.secret,
      headers: { 'If-None-Match': etag },
    });
    expect(res.status).toBe(304);
  }
  // 404 unknown_resource with the second key, one carrying a key in its path and query.
  for (const g of [0, 1])
    expect((await send(g, '/api/v1/nothing', { key: second.secret })).status).toBe(404);
  expect(
    (await send(1, `/api/v1/${brand.secret}?key=${brand.secret}`, { key: second.secret })).status,
  ).toBe(404);
  // Two assistant calls, one batch of two messages.
  expect((await send(0, '/api/mcp', { key: second.secret, body: listCall(1) })).status).toBe(200);
  expect(
    (
      await send(1, '/api/mcp', {
        key: second.secret,
        body: [listCall(2), listCall(3)],
        headers: { 'MCP-Protocol-Version': '2025-03-26' },
      })
    ).status,
  ).toBe(200);

  // A tool call refused inside a 200 (isError) counts and is logged under its code.
  const badArgs = await send(0, '/api/mcp', {
    key: second.secret,
    body: { ...listCall(4), params: { name: 'list_campaigns', arguments: { limit: 1000 } } },
  });
  expect(badArgs.status).toBe(200);
  expect(JSON.stringify(await badArgs.json())).toContain('invalid_parameter');

  // 401s of each reason.
  const unknown = `bk_live_${randomHex(20)}`;
  secrets.push(unknown);
  const refusals: [number, Parameters<typeof send>[2]][] = [
    [0, {}], // no key
    [1, { authorization: `Basic ${brand.secret}` }], // another scheme
    [0, { key: 'bk_live_tooShort' }], // malformed
    [1, { key: unknown }], // unknown
    [0, { key: revoked.secret }], // revoked
    [1, { key: revoked.secret }],
    [0, { key: testKey.secret }], // a test key on live
    [1, { key: rolled.secret }], // expired by a roll
    [1, { key: other.secret }], // another brand's (revoked) key
  ];
  for (const [g, opts] of refusals) {
    expect((await send(g, `/api/v1/campaigns?cursor=${brand.secret}`, opts)).status).toBe(401);
  }

  const expected: Record<string, number> = {
    [`${brand.key.id}|rest|2xx`]: 5,
    [`${brand.key.id}|rest|304`]: 2,
    [`${second.id}|rest|4xx:unknown_resource`]: 3,
    [`${second.id}|assistant|2xx`]: 3,
    [`${second.id}|assistant|4xx:invalid_parameter`]: 1,
    [`${revoked.id}|rest|4xx:invalid_key`]: 2,
    [`${testKey.id}|rest|4xx:invalid_key`]: 1,
    [`${rolled.id}|rest|4xx:invalid_key`]: 1,
    ['none|rest|4xx:missing_key']: 2,
    ['none|rest|4xx:invalid_key']: 2,
  };
  const expectedBusy = {
    [`${busy.key.id}|rest|2xx`]: 60,
    [`${busy.key.id}|rest|429`]: 2,
    [`${busy.key.id}|assistant|429`]: 1,
  };
  const expectedOther = { [`${other.key.id}|rest|4xx:invalid_key`]: 1 };
  // Each gateway flushes on its own clock, so a brand's counts may land one flush after
  // another brand's (a flush between the last two refusals): wait for all three brands.
  const landed = async () => ({
    brand: sorted(await usageOf(brand.brand.id)),
    busy: sorted(await usageOf(busy.brand.id)),
    other: sorted(await usageOf(other.brand.id)),
  });
  const want = {
    brand: sorted(expected),
    busy: sorted(expectedBusy),
    other: sorted(expectedOther),
  };
  await waitFor(
    async () => {
      const seen = await landed();
      return JSON.stringify(seen) === JSON.stringify(want) ? seen : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 200 },
  ).catch(async () => expect(await landed()).toEqual(want));

  // The log: newest first, each 401 with its reason (the operator sees reasons).
  const log = await waitFor(async () => {
    const entries = await logOf(brand.brand.id);
    return entries.length === 13 ? entries : undefined;
  });
  const reasons = log.filter((e) => e.status === 401).map((e) => `${e.reason}:${e.key_id || '-'}`);
  expect(reasons.sort()).toEqual(
    [
      'no_key:-',
      'no_key:-',
      'unknown_key:-',
      'unknown_key:-',
      `revoked:${revoked.id}`,
      `revoked:${revoked.id}`,
      `wrong_environment:${testKey.id}`,
      `expired:${rolled.id}`,
      'other_brand:-',
    ].sort(),
  );
  const revokedEntry = log.find((e) => e.reason === 'revoked')!;
  expect(revokedEntry).toMatchObject({
    reason_by: brand.owner.email,
    key_name: 'Old sync',
    error_code: 'invalid_key',
  });
  expect(revokedEntry.reason_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(log.find((e) => e.reason === 'expired')).toMatchObject({
    key_name: 'Rolled sync',
    reason_by: 'Warehouse sync',
  });
  expect(
    log
      .filter((e) => e.status === 404)
      .map((e) => e.path)
      .sort(),
  ).toEqual(['/api/v1/<key>', '/api/v1/nothing', '/api/v1/nothing']);
  expect(log.find((e) => e.error_code === 'invalid_parameter')).toMatchObject({
    status: 400,
    path: '/api/mcp',
    surface: UsageSurface.USAGE_SURFACE_ASSISTANT,
    key_id: second.id,
  });
  expect(log.every((e) => e.request_id.length > 0 && !e.path.includes('?'))).toBe(true);
  expect(log.map((e) => e.at)).toEqual([...log.map((e) => e.at)].sort().reverse());
  // The other brand sees its own key's refusal, and nothing of the brand that sent it.
  expect((await logOf(other.brand.id)).map((e) => `${e.reason}:${e.key_id}`)).toEqual([
    `revoked:${other.key.id}`,
  ]);
  // Filters: by key, "none", and code.
  const page = (key_id: string, error_code = '') =>
    stack.admin.usage('listRequestLog', {
      brand_id: brand.brand.id,
      key_id,
      error_code,
      page_size: 200,
      page_token: '',
      since: '',
      until: '',
    });
  expect((await page(revoked.id)).entries).toHaveLength(2);
  expect((await page('none')).entries).toHaveLength(5);
  expect((await page('', 'unknown_resource')).entries).toHaveLength(3);

  // Never a secret, in any stored row.
  const rows = await stack.db.pool.query('select row_to_json(l)::text as row from request_log l');
  const stored = rows.rows.map((r: { row: string }) => r.row).join('\n');
  for (const secret of secrets) expect(stored).not.toContain(secret);
  expect(stored).not.toContain('tooShort');

  // A third gateway that never flushes on its own: SIGTERM sends what it counted.
  const third = await startGateway({
    recordsAddr: stack.records.address,
    redisKeyPrefix: stack.redisKeyPrefix,
    redisUrl: stack.redisUrl,
    env: { USAGE_FLUSH_INTERVAL_MS: '600000', ACCESS_LOG: 'false' },
  });
  for (let i = 0; i < 3; i += 1) {
    expect(
      (
        await fetch(`${third.url}/api/v1/campaigns?limit=1`, {
          headers: { Authorization: `Bearer ${brand.secret}` },
        })
      ).status,
    ).toBe(200);
  }
  expect(await third.stop('SIGTERM')).toBe(0);
  expect((await usageOf(brand.brand.id))[`${brand.key.id}|rest|2xx`]).toBe(8);
}, 90_000);

it('shows the reasons to owners only', async () => {
  const console = createConsoleClient(stack.records.address);
  const adminEmail = `admin-${randomHex(3)}@brand.test`;
  await stack.admin.addMember({ brandId: brand.brand.id, email: adminEmail, role: 'admin' });
  try {
    const list = async (email: string) => {
      const { sessionToken } = await console.signIn(email);
      const member = await console.actAs(sessionToken, brand.brand.id);
      return (
        await member.usage('listRequestLog', {
          brand_id: brand.brand.id,
          key_id: '',
          error_code: '',
          page_size: 200,
          page_token: '',
          since: '',
          until: '',
        })
      ).entries.filter((e) => e.status === 401);
    };
    const owner = await list(brand.owner.email);
    const admin = await list(adminEmail);
    expect(owner.length).toBeGreaterThan(0);
    expect(owner.every((e) => e.reason !== '')).toBe(true);
    expect(admin).toHaveLength(owner.length);
    expect(admin.every((e) => e.reason === '' && e.reason_by === '')).toBe(true);
  } finally {
    console.close();
  }
});

// A hostile review (2026-11-30): an assistant batch refused for carrying more messages than the
// brand's whole budget is charged one unit, but usage counted each of its messages, so one
// refused POST of 100 added 100 failed requests to the brand's usage.
it('counts an assistant batch refused as larger than the budget as the one request it is charged', async () => {
  const plus = await makeBrandWithKey(stack.admin, { tier: 'plus', keyName: 'Assistant' });
  secrets.push(plus.secret);
  const pings = Array.from({ length: 61 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'ping',
  }));
  const res = await send(0, '/api/mcp', {
    key: plus.secret,
    body: pings,
    headers: { 'MCP-Protocol-Version': '2025-03-26' },
  });
  expect(res.status).toBe(400);
  const counted = await waitFor(
    async () => {
      const usage = await usageOf(plus.brand.id);
      return Object.keys(usage).length > 0 ? usage : undefined;
    },
    { timeoutMs: 10_000, what: "the refused batch's usage" },
  );
  expect(counted).toEqual({ [`${plus.key.id}|assistant|4xx:malformed_request`]: 1 });
});

function sorted(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
