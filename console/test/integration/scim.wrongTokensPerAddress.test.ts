// Wrong SCIM tokens are throttled per client address (SECURITY.md "SCIM"): a guesser sending
// well-formed tokens from one address is answered 429 with Retry-After past the bound, and
// records is not asked for those (each wrong token cost a records round trip and nothing slowed
// the guesser). A provider elsewhere is answered meanwhile, and one whose token already worked
// recently is answered even from the guesser's address (a shared NAT). Real records, Redis and
// the console process; the address is the one the console reads behind a trusted proxy.
import { randomBytes } from 'node:crypto';
import { scrapeMetric } from '@brand/testkit';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { scimTokenOf } from '../scimActors';

const BOUND = 5;
const WINDOW_MS = 20_000;
const GUESSER = '203.0.113.7';
const ELSEWHERE = '198.51.100.9';

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({
    signInOnly: true,
    consoleEnv: {
      // the test talks to the console over loopback, as an ingress would
      TRUST_PROXY: 'loopback',
      SCIM_AUTH_FAILURES_PER_ADDRESS: String(BOUND),
      SCIM_AUTH_FAILURE_WINDOW_MS: String(WINDOW_MS),
    },
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

/** GET /Users with `token` as the client at `address` (X-Forwarded-For, as the ingress sets it). */
async function listUsers(token: string, address: string) {
  const res = await fetch(`${cs.url}/scim/v2/Users`, {
    headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
    signal: AbortSignal.timeout(8_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

/** A well-formed token records never minted. */
const wrongToken = () => `scim_${randomBytes(32).toString('base64url')}`;

/** How many times records was asked to check a SCIM token. */
const tokenChecks = () =>
  scrapeMetric(cs.stack.records.opsUrl, /^grpc_server_handled_total\{.*AuthenticateScimToken/);

describe('wrong SCIM tokens from one address', () => {
  it('are answered 429 with Retry-After past the bound, without asking records', async () => {
    const made = await brandWithOwner(cs);
    const owner = await signInHttp(cs, made.owner.email);
    const known = await scimTokenOf(owner, made.brand.id, 'Okta');
    const fresh = await scimTokenOf(owner, made.brand.id, 'Entra ID');
    // The provider's token works (from its own address) before the guessing starts.
    expect((await listUsers(known, ELSEWHERE)).status).toBe(200);

    for (let i = 0; i < BOUND; i++) {
      expect((await listUsers(wrongToken(), GUESSER)).status).toBe(401);
    }
    const before = await tokenChecks();
    expect(before).toBeGreaterThan(BOUND); // the metric counts these checks
    for (let i = 0; i < 3; i++) {
      const refused = await listUsers(wrongToken(), GUESSER);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(refused.body).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: '429',
      });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    }
    expect(await tokenChecks()).toBe(before);

    // A right token from another address is answered as ever.
    expect((await listUsers(fresh, ELSEWHERE)).status).toBe(200);
    // Behind the guesser's NAT: a token that worked recently is still answered; one never seen
    // working waits out the window like the guesser (it cannot be told from a guess unasked).
    expect((await listUsers(known, GUESSER)).status).toBe(200);
    const unseen = await scimTokenOf(owner, made.brand.id, 'Third provider');
    expect((await listUsers(unseen, GUESSER)).status).toBe(429);
  });
});
