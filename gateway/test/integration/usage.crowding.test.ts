import {
  makeBrandWithKey,
  randomHex,
  startGateway,
  startStack,
  waitFor,
  type Stack,
} from '@brand/testkit';
import type { RequestLogEntry } from '@brand/proto/access/v1/usage';

/**
 * One source cannot crowd the others out of a gateway's request log (a review): an
 * outsider with no account sent random well-formed keys (401, then an uncharged 429) until the
 * log's 1,000 entries of the window were full, and every brand's refusals on that gateway were
 * dropped, a leaked key's network_not_allowed among them. Through a real gateway and records:
 * one flush window (the gateway flushes when it is stopped), the flood first, then the refusal.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(() => stack?.close());

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

it("keeps a brand's refusal after a flood of random keys, and folds a brand's own flood into a summary", async () => {
  const gateway = await startGateway({
    recordsAddr: stack.records.address,
    redisKeyPrefix: stack.redisKeyPrefix,
    redisUrl: stack.redisUrl,
    // one window: the gateway flushes only when stopped
    env: { USAGE_FLUSH_INTERVAL_MS: '600000', ACCESS_LOG: 'false', TRUST_PROXY: 'loopback' },
  });
  const leaked = await makeBrandWithKey(stack.admin);
  const fenced = await stack.admin.createKey({
    brandId: leaked.brand.id,
    actorEmail: leaked.owner.email,
    name: 'Fenced',
    allowedNetworks: ['192.0.2.0/24'],
  });
  const noisy = await makeBrandWithKey(stack.admin);
  const get = (path: string, key: string, address: string) =>
    fetch(`${gateway.url}${path}`, {
      headers: { Authorization: `Bearer ${key}`, 'X-Forwarded-For': address },
    }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });

  // The flood: 1,100 random keys from one address (60 answered 401, then 429).
  const statuses: number[] = [];
  for (let i = 0; i < 1_100; i += 20)
    statuses.push(
      ...(await Promise.all(
        Array.from({ length: 20 }, () =>
          get('/api/v1/campaigns', `bk_live_${randomHex(20)}`, '198.51.100.7'),
        ),
      )),
    );
  expect(new Set(statuses)).toEqual(new Set([401, 429]));
  // A brand's own key, refused 40 times (404) from its address.
  for (let i = 0; i < 40; i += 1)
    expect(await get(`/api/v1/nothing${i}`, noisy.secret, '203.0.113.20')).toBe(404);
  // Then the leaked key, from outside its networks.
  expect(await get('/api/v1/campaigns', fenced.secret, '203.0.113.9')).toBe(403);
  expect(await gateway.stop('SIGTERM')).toBe(0);

  const refusal = await waitFor(async () => {
    const entries = await logOf(leaked.brand.id);
    return entries.length > 0 ? entries : undefined;
  });
  expect(refusal.map((e) => [e.key_id, e.status, e.error_code, e.client_address])).toEqual([
    [fenced.key.id, 403, 'network_not_allowed', '203.0.113.9'],
  ]);
  // The brand's own 40: the first 20 as they were, the other 20 in one entry that counts them.
  const own = await logOf(noisy.brand.id);
  expect(own).toHaveLength(21);
  const summary = own.find((e) => e.path.includes(' more '))!;
  expect(summary.path).toMatch(
    /^\/api\/v1\/nothing20 \(and 19 more refused or failed requests with the same key up to \S+Z, not logged one by one\)$/,
  );
  expect(summary).toMatchObject({
    key_id: noisy.key.id,
    status: 404,
    error_code: 'unknown_resource',
  });
}, 120_000);
