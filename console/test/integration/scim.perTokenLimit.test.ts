// SCIM requests are limited per token (SECURITY.md listed the missing limit among what a review
// found): one provider sending without pause spends its own budget only, and is told how long to
// wait (429 with Retry-After, which Okta and Entra ID honour), never a 5xx. Each HTTP request
// counts once, though records authenticates the token again for each call it makes for it. Real
// records (the limit set small and its window short), Redis, the console process.
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@brand/testkit';
import { brandWithOwner, signInHttp } from '../consoleActors';
import { startConsoleStack, type ConsoleStack } from '../consoleStack';
import { scimClient, scimTokenOf } from '../scimActors';

const LIMIT = 5;
const WINDOW_MS = 6_000;

let cs: ConsoleStack;

beforeAll(async () => {
  cs = await startConsoleStack({
    signInOnly: true,
    recordsEnv: {
      SCIM_REQUESTS_PER_TOKEN: String(LIMIT),
      SCIM_REQUEST_WINDOW_MS: String(WINDOW_MS),
    },
  });
}, 120_000);
afterAll(async () => {
  await cs?.close();
});

const within = { timeoutMs: 8_000 };

/** A brand with its owner signed in, and a SCIM client for a token the owner made. */
async function brandWithToken(name: string) {
  const made = await brandWithOwner(cs);
  const owner = await signInHttp(cs, made.owner.email);
  const token = await scimTokenOf(owner, made.brand.id, name);
  return { brandId: made.brand.id, owner, token, scim: scimClient(cs, token) };
}

/** The statuses the brand's Provisioning page lists, as records keeps them. */
async function loggedStatuses(brandId: string): Promise<number[]> {
  const { rows } = await cs.stack.db.pool.query<{ status: number }>(
    `select status from records.scim_requests where brand_id = $1 order by status, at`,
    [brandId],
  );
  return rows.map((r) => r.status);
}

describe('the SCIM request limit', () => {
  it('refuses a token past its limit with 429 and Retry-After, alone, until its window ends', async () => {
    const a = await brandWithToken('Okta');
    const b = await brandWithToken('Entra ID');
    const second = await scimTokenOf(a.owner, a.brandId, 'Second provider');

    // A list is three calls to records (the token, the list, the log), one request: five fit.
    for (let i = 0; i < LIMIT; i++) {
      expect((await a.scim('GET', '/Users', undefined, within)).status).toBe(200);
    }
    const refused = await a.scim('GET', '/Users', undefined, within);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '429',
    });
    expect(String(refused.body.detail)).toMatch(/try again in \d+ seconds/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);

    // Another brand's provider, and another token of the same brand, are answered meanwhile.
    expect((await b.scim('GET', '/Users', undefined, within)).status).toBe(200);
    expect((await scimClient(cs, second)('GET', '/Users', undefined, within)).status).toBe(200);
    expect((await a.scim('GET', '/Groups', undefined, within)).status).toBe(429);

    // The owner sees the refusal among the provider's requests, once a window however many.
    // (the second token's request is the sixth 200)
    await waitFor(async () => {
      expect(await loggedStatuses(a.brandId)).toEqual([...Array<number>(LIMIT + 1).fill(200), 429]);
      return true;
    });

    await sleep(retryAfter * 1000);
    expect((await a.scim('GET', '/Users', undefined, within)).status).toBe(200);
  });
});
