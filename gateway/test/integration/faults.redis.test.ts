import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, type Redis } from '@brand/shared/redis';
import {
  makeBrandWithKey,
  startStack,
  tcpProxy,
  testRedisUrl,
  waitFor,
  type BrandWithKey,
  type GatewayProcess,
  type Stack,
  type TcpProxy,
} from '@brand/testkit';
import { ApiClient, type ApiResponse } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';
import { opsReadiness } from '../support/ops';

// Redis down changes nothing a client sees: requests succeed and are still limited, and a
// revocation applies within KEY_CACHE_TTL_MS. The gateways reach Redis only through a TCP proxy,
// which the test pauses to make Redis "stop" for them. The records service keeps its direct
// connection, so revocations are still announced, and lost on the gateways' side.

const KEY_CACHE_TTL_MS = 1_000;
const FALLBACK = 'rate limiting falls back to per-instance memory: Redis unavailable';
const RESTORED = 'rate limiting is shared through Redis again';

let proxy: TcpProxy;
let stack: Stack;
let apis: ApiClient[];
let redis: Redis;
let pro: BrandWithKey;
/** Per gateway, how often each switch was logged before the outage. */
let loggedBefore: { fallback: number[]; restored: number[] };

function burst(api: ApiClient, key: string, n: number): Promise<Array<ApiResponse<ErrorBody>>> {
  return Promise.all(
    Array.from({ length: n }, () => api.get<ErrorBody>('/api/v1/campaigns', { key })),
  );
}

const count = (responses: Array<ApiResponse<unknown>>, status: number) =>
  responses.filter((r) => r.status === status).length;

/** How many log lines of `gateway` carry exactly this message. */
function logged(gateway: GatewayProcess, msg: string): number {
  return gateway.logs().filter((line) => line.includes(`"msg":"${msg}"`)).length;
}

async function waitForRedisCheck(expected: 'ok' | 'degraded'): Promise<void> {
  for (const gateway of stack.gateways) {
    await waitFor(
      async () => {
        const res = await opsReadiness(gateway);
        return res.status === 200 && res.body.checks.redis === expected;
      },
      { timeoutMs: 10_000, what: `readyz redis ${expected}` },
    );
  }
}

beforeAll(async () => {
  const target = new URL(testRedisUrl());
  proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  stack = await startStack({
    gateways: 2,
    gatewayEnv: {
      REDIS_URL: proxy.rewrite(testRedisUrl()),
      // two replicas: while Redis is down each admits half of a brand's plan limit
      RATE_LIMIT_FALLBACK_INSTANCES: '2',
      KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS),
    },
  });
  apis = stack.gateways.map((g) => new ApiClient(g.url));
  redis = createRedisClient({
    url: testRedisUrl(),
    name: 'test',
    log: createLogger({ service: 'test', level: 'silent' }),
    queueWhileOffline: true,
  });
  await waitForRedisCheck('ok');
  // A gateway serves before its Redis connection is up, and (rightly) uses the fallback
  // until then; one counted request each puts both limiters on Redis before the outage.
  pro = await makeBrandWithKey(stack.admin, { tier: 'pro' });
  for (const api of apis) {
    const res = await api.get('/api/v1/links', { key: pro.secret });
    expect(res.headers.get('ratelimit-policy')).toBe('"brand";q=120;w=60');
  }
  loggedBefore = {
    fallback: stack.gateways.map((g) => logged(g, FALLBACK)),
    restored: stack.gateways.map((g) => logged(g, RESTORED)),
  };
});

afterAll(async () => {
  await proxy?.resume();
  await stack?.close();
  await proxy?.close();
  if (redis) await closeRedis(redis);
});

describe('Redis unreachable for the gateways (issue 2, behaviour 9)', () => {
  let revocable: BrandWithKey;

  it('requests keep succeeding the moment Redis goes away; /readyz stays 200, redis degraded', async () => {
    revocable = await makeBrandWithKey(stack.admin, { tier: 'pro' });
    await proxy.pause();
    const during = await Promise.all(apis.map((api) => burst(api, pro.secret, 10)));
    expect(during.flat().map((r) => r.status)).toEqual(Array(20).fill(200));

    await waitForRedisCheck('degraded');
    for (const gateway of stack.gateways) {
      const res = await opsReadiness(gateway);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ready', checks: { records: 'ok' } });
    }
  });

  it('the fallback still limits: each of the 2 instances admits exactly 30 of a Plus brand', async () => {
    await waitForRedisCheck('degraded');
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const results = await Promise.all(apis.map((api) => burst(api, plus.secret, 100)));
    for (const responses of results) {
      expect(count(responses, 200)).toBe(30);
      expect(count(responses, 429)).toBe(70);
      for (const res of responses) {
        expect(res.headers.get('ratelimit-policy')).toBe('"brand";q=30;w=60');
        if (res.status !== 429) continue;
        expect(res.body.error.code).toBe('rate_limited');
        expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
    }
    // so the whole deployment stays within the plan's 60, and nothing was a 5xx
    expect(results.flat().filter((r) => r.status >= 500)).toEqual([]);
    // one warning per instance for the whole outage, not one per request
    const fallbacks = stack.gateways.map((g, i) => logged(g, FALLBACK) - loggedBefore.fallback[i]!);
    expect(fallbacks).toEqual([1, 1]);
  });

  it('a key revoked while Redis is down is refused within KEY_CACHE_TTL_MS', async () => {
    await waitForRedisCheck('degraded');
    // cached by both instances while Redis is down
    for (const api of apis) {
      expect((await api.get('/api/v1/links', { key: revocable.secret })).status).toBe(200);
    }
    const revokedAt = Date.now();
    await stack.admin.revokeKey(revocable.key.id);
    // the announcement is lost on the gateways' side; their cache entry expires instead
    for (const api of apis) {
      const refused = await waitFor(
        async () => {
          const res = await api.get<ErrorBody>('/api/v1/links', { key: revocable.secret });
          expect([200, 401]).toContain(res.status);
          return res.status === 401 ? res : undefined;
        },
        { timeoutMs: KEY_CACHE_TTL_MS + 2_000, intervalMs: 100, what: 'revoked key refused' },
      );
      expect(refused.body.error.code).toBe('invalid_key');
    }
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(KEY_CACHE_TTL_MS + 1_000);
  });

  it('once Redis is back the budget is shared through Redis again: exactly 60 across both', async () => {
    await proxy.resume();
    await waitForRedisCheck('ok');
    const plus = await makeBrandWithKey(stack.admin, { tier: 'plus' });
    const results = await Promise.all(apis.map((api) => burst(api, plus.secret, 50)));
    const all = results.flat();
    expect(count(all, 200)).toBe(60);
    expect(count(all, 429)).toBe(40);
    for (const res of all) expect(res.headers.get('ratelimit-policy')).toBe('"brand";q=60;w=60');
    expect(await redis.zcard(`${stack.redisKeyPrefix}rl:brand:${plus.brand.id}`)).toBe(60);
    const restored = stack.gateways.map((g, i) => logged(g, RESTORED) - loggedBefore.restored[i]!);
    expect(restored).toEqual([1, 1]);
  });
});
