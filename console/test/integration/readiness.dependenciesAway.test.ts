// The console stays ready while records or Redis is away (a platform review): every console pod
// shares them, so a readiness that followed them took every pod out during a database or Redis
// failover, and the ingress answered every page, and SCIM, with its own bare 503 without
// Retry-After. /readyz names the dependency that is down and stays 200; the pages answer their
// own 503 with Retry-After. Real records (stopped with SIGSTOP, as a process that no longer
// answers), real Redis behind a TCP proxy the test pauses, the console process.
import { randomHex, tcpProxy, testRedisUrl, waitFor, type TcpProxy } from '@brand/testkit';
import { ConsoleHttp } from '../browserlessClient';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';

let cs: ConsoleStack;
let redisProxy: TcpProxy;

beforeAll(async () => {
  const redis = new URL(testRedisUrl());
  redisProxy = await tcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  cs = await startConsoleStack({
    signInOnly: true,
    consoleEnv: { REDIS_URL: redisProxy.rewrite(testRedisUrl()) },
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
  await redisProxy?.close();
});

interface Readiness {
  status: number;
  body: { status: string; checks: Record<string, string | boolean> };
}

async function readyz(): Promise<Readiness> {
  const res = await fetch(`${cs.opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness['body'] };
}

/** Waits until /readyz's body says `check` is in the `state` wanted, and answers that readiness. */
async function once(check: string, state: (s: string | boolean | undefined) => boolean) {
  let seen: Readiness | undefined;
  await waitFor(
    async () => {
      seen = await readyz();
      return state(seen.body.checks[check]);
    },
    { timeoutMs: 15_000, what: `/readyz's ${check} check to change` },
  );
  return seen!;
}

describe('while Redis is unreachable', () => {
  it('stays ready and names Redis as unavailable; the pages still answer', async () => {
    // the console connects to Redis as it starts, without waiting for it
    expect(await once('redis', (s) => s === 'ok')).toMatchObject({ status: 200 });
    await redisProxy.pause();
    try {
      const away = await once('redis', (s) => s !== 'ok');
      expect(away).toMatchObject({ status: 200, body: { status: 'ready' } });
      expect(away.body.checks.redis).toMatch(/^unavailable/);
      // signing in needs records, not the console's Redis (only the one-time reveal does)
      expect((await fetch(`${cs.url}/sign-in`)).status).toBe(200);
      const signIn = await new ConsoleHttp(cs.url).post('/sign-in', {
        email: `redis-away-${randomHex(4)}@brand.test`,
      });
      expect(signIn.status).toBe(200);
    } finally {
      await redisProxy.resume();
    }
    expect(await once('redis', (s) => s === 'ok')).toMatchObject({ status: 200 });
  });
});

describe('while records does not answer', () => {
  it('stays ready and names records as unavailable; a page and SCIM answer 503 with Retry-After', async () => {
    expect(await once('records', (s) => s === 'ok')).toMatchObject({ status: 200 });
    process.kill(cs.stack.records.pid, 'SIGSTOP');
    try {
      const away = await once('records', (s) => s !== 'ok');
      expect(away).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { records: 'unavailable', shutting_down: false } },
      });

      const signIn = await new ConsoleHttp(cs.url).post('/sign-in', {
        email: `away-${randomHex(4)}@brand.test`,
      });
      expect(signIn.status).toBe(503);
      expect(Number(signIn.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(signIn.body).toContain('temporarily unavailable');

      const scim = await fetch(`${cs.url}/scim/v2/Users`, {
        headers: { authorization: `Bearer scim_${'A'.repeat(43)}` },
      });
      expect(scim.status).toBe(503);
      expect(Number(scim.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      process.kill(cs.stack.records.pid, 'SIGCONT');
    }
    expect(await once('records', (s) => s === 'ok')).toMatchObject({ status: 200 });
  });
});
