import { Environment, KeyOverlap } from '@brand/proto/access/v1';
import {
  makeBrandWithKey,
  startGateway,
  startStack,
  waitFor,
  type BrandWithKey,
  type Stack,
} from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';

/**
 * Key expiry and rolls across two real gateway instances. The key cache lives far
 * longer than any expiry here (KEY_CACHE_TTL_MS 10 min), so a key refused at its expiry
 * instant was refused by the per-request check of the cached expiry, not by a cache miss.
 */
const GATEWAY_ENV = { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000', KEY_CACHE_TTL_MS: '600000' };

let stack: Stack;
let a: ApiClient;
let b: ApiClient;

beforeAll(async () => {
  stack = await startStack({ gateways: 2, gatewayEnv: GATEWAY_ENV });
  a = new ApiClient(stack.gateways[0]!.url);
  b = new ApiClient(stack.gateways[1]!.url);
});
afterAll(() => stack?.close());

const PATH = '/api/v1/campaigns';

async function statusOn(client: ApiClient, key: string): Promise<number> {
  return (await client.get(PATH, { key })).status;
}

async function expectInvalidKey(client: ApiClient, key: string): Promise<ErrorBody> {
  const res = await client.get<ErrorBody>(PATH, { key });
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('invalid_key');
  return res.body;
}

const roll = (from: BrandWithKey, overlap: KeyOverlap) =>
  stack.admin.access('rollKey', {
    key_id: from.key.id,
    old_key_expires_in: overlap,
    actor_email: from.owner.email,
  });

const expireNow = (keyId: string) =>
  stack.admin.access('setKeyExpiry', { key_id: keyId, now: true, expires_at: '', actor_email: '' });

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

/** A request's status and when its answer arrived (this process and the gateways share a clock). */
async function answered(client: ApiClient, key: string): Promise<{ status: number; at: number }> {
  const status = await statusOn(client, key);
  return { status, at: Date.now() };
}

/**
 * One try of the expiry test with a key that expires `leadMs` from now: both instances verify
 * and cache it (with its expiry), answer it again from their caches shortly before the instant,
 * and refuse it on the first request after it. Every answer that arrived before the instant must
 * be 200 and the first after it 401, however long the requests took: only the instant decides.
 * 'too slow' when the cached answers arrived after the instant (a loaded machine outlasted the
 * lead), which proves nothing either way: the caller tries again with a longer lead.
 */
async function expiryRound(brand: BrandWithKey, leadMs: number): Promise<'done' | 'too slow'> {
  const expiresAt = Date.now() + leadMs;
  const { key, secret } = await stack.admin.access('createKey', {
    brand_id: brand.brand.id,
    name: 'Short-lived',
    environment: Environment.ENVIRONMENT_LIVE,
    actor_email: brand.owner.email,
    allowed_networks: [],
    permissions: [],
    expires_at: new Date(expiresAt).toISOString(),
  });
  expect(Date.parse(key!.expires_at!)).toBe(expiresAt);
  // Both instances verify and cache the key, with its expiry; then answer from the cache.
  const warm = [await answered(a, secret), await answered(b, secret)];
  await sleepUntil(expiresAt - 1_500);
  const cached = [await answered(a, secret), await answered(b, secret)];
  for (const r of [...warm, ...cached]) if (r.at < expiresAt) expect(r.status).toBe(200);
  if (cached.some((r) => r.at >= expiresAt)) return 'too slow';

  await sleepUntil(expiresAt);
  // The first request after the instant, on each instance: no grace, no cache delay.
  const onA = await expectInvalidKey(a, secret);
  await expectInvalidKey(b, secret);
  // Answered by the records service once the cache let go of the key: it says why.
  expect(onA.error.message).toMatch(/expired/);
  return 'done';
}

describe('a key with an expiry, cached on two gateways', () => {
  it('works until its expiry instant and is refused by both instances right after it', async () => {
    const brand = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    // The expiry is the test's to choose, not a race to win: 6 s suffices on a quiet machine;
    // one loaded enough to outlast it (a CI run at load 7-11 did) tries a longer one.
    const rounds: number[] = [];
    for (const leadMs of [6_000, 20_000, 60_000]) {
      rounds.push(leadMs);
      if ((await expiryRound(brand, leadMs)) === 'done') return;
    }
    throw new Error(
      `no round's cached answers came before the expiry (leads ${rounds.join(', ')} ms)`,
    );
  }, 180_000);
});

describe('rolling a key', () => {
  it('keeps the old key working next to its replacement during the overlap; expire now ends it on both instances at once', async () => {
    const old = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    expect(await statusOn(a, old.secret)).toBe(200);
    expect(await statusOn(b, old.secret)).toBe(200);

    const rolled = await roll(old, KeyOverlap.KEY_OVERLAP_ONE_HOUR);
    for (const client of [a, b]) {
      expect(await statusOn(client, old.secret)).toBe(200);
      expect(await statusOn(client, rolled.secret)).toBe(200);
    }

    const endedAt = Date.now();
    await expireNow(old.key.id);
    await waitFor(async () => (await statusOn(b, old.secret)) === 401, {
      timeoutMs: 1_000,
      intervalMs: 20,
      what: 'instance b to refuse the expired key',
    });
    await expectInvalidKey(a, old.secret);
    expect(Date.now() - endedAt).toBeLessThan(1_000);
    expect(await statusOn(a, rolled.secret)).toBe(200);
    expect(await statusOn(b, rolled.secret)).toBe(200);
  });

  it('with no overlap refuses the cached old key on both instances, and across a gateway restart; it can never be re-enabled', async () => {
    const old = await makeBrandWithKey(stack.admin, { tier: 'enterprise' });
    expect(await statusOn(a, old.secret)).toBe(200);
    expect(await statusOn(b, old.secret)).toBe(200);

    const rolled = await roll(old, KeyOverlap.KEY_OVERLAP_NONE);
    await waitFor(
      async () =>
        (await statusOn(a, old.secret)) === 401 && (await statusOn(b, old.secret)) === 401,
      { timeoutMs: 1_000, intervalMs: 20, what: 'both instances to refuse the rolled key' },
    );
    expect(await statusOn(a, rolled.secret)).toBe(200);

    // Nothing brings it back: not a later expiry, not a direct write to the table.
    await expect(
      stack.admin.access('setKeyExpiry', {
        key_id: old.key.id,
        now: false,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        actor_email: '',
      }),
    ).rejects.toMatchObject({ code: 'key_inactive' });
    await expect(
      stack.db.pool.query('update api_keys set expires_at = null where id = $1', [old.key.id]),
    ).rejects.toThrow(/only move earlier/);

    // A restarted instance (empty cache) refuses it too, and serves the replacement.
    const restarted = stack.gateways[1]!;
    await restarted.stop('SIGTERM', 5_000);
    const fresh = await startGateway({
      recordsAddr: stack.records.address,
      redisUrl: stack.redisUrl,
      redisKeyPrefix: stack.redisKeyPrefix,
      env: GATEWAY_ENV,
    });
    stack.gateways[1] = fresh;
    b = new ApiClient(fresh.url);
    await expectInvalidKey(b, old.secret);
    expect(await statusOn(b, rolled.secret)).toBe(200);
    await expectInvalidKey(a, old.secret);
  });
});
