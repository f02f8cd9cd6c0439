import { KeyOverlap } from '@brand/proto/access/v1';
import { makeBrandWithKey, startStack, waitFor, type Stack } from '@brand/testkit';
import { ApiClient } from '../support/apiClient';
import type { ErrorBody } from '../../src/http/errorResponse';

/**
 * API keys bound to networks (issue 63), through a real gateway and records: the client address
 * is the one TRUST_PROXY trusts (here the loopback proxy's X-Forwarded-For, as behind the chart's
 * ingress), a request from outside a key's networks is 403 network_not_allowed and in the request
 * log with its address, a change of networks holds at the next request although the key cache
 * lives 10 minutes, and the brand's key policy refuses new keys without networks.
 */
const GATEWAY_ENV = {
  TRUST_PROXY: 'loopback',
  KEY_CACHE_TTL_MS: '600000',
  ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000',
  USAGE_FLUSH_INTERVAL_MS: '200',
};

let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: GATEWAY_ENV });
  api = new ApiClient(stack.gateway.url);
});
afterAll(() => stack?.close());

const from = (address: string) => ({ 'X-Forwarded-For': address });
const page = (key: string, address?: string) =>
  api.get<ErrorBody>('/api/v1/campaigns?limit=1', {
    key,
    headers: address ? from(address) : {},
  });

/**
 * A refusal's code and message as plain values: `rejects.toMatchObject({ message: /…/ })` passes
 * whatever the message says (a RegExp there is an object with no keys of its own, which jest's
 * subset equality takes as matched by any value), so the wording is checked here.
 */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'none', message: 'resolved' }),
    (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }),
  );

describe('a key with allowed networks', () => {
  it('works from inside them, is refused from elsewhere, and the log keeps the address', async () => {
    const t = await makeBrandWithKey(stack.admin);
    const { key, secret } = await stack.admin.createKey({
      brandId: t.brand.id,
      actorEmail: t.owner.email,
      name: 'Fenced',
      allowedNetworks: ['198.51.100.0/24', '2001:db8::/32'],
    });
    expect(key.allowed_networks).toEqual(['198.51.100.0/24', '2001:db8::/32']);

    expect((await page(secret, '198.51.100.7')).status).toBe(200);
    expect((await page(secret, '2001:db8:7::1')).status).toBe(200);
    const refused = await page(secret, '203.0.113.9');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('network_not_allowed');
    expect(refused.body.error.message).toContain('"203.0.113.9"');
    // charged to the address, not to the brand's budget
    expect(refused.headers.get('RateLimit-Policy')).toMatch(/^"anonymous"/);
    // the proxy itself (no X-Forwarded-For): its loopback address is outside too
    expect((await page(secret)).status).toBe(403);
    // the assistant endpoint is admitted by the same gate
    const mcp = await fetch(`${stack.gateway.url}/api/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': 'application/json',
        ...from('203.0.113.9'),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(403);
    expect(JSON.stringify(await mcp.json())).toContain('network_not_allowed');
    // a key without networks works from anywhere
    expect((await page(t.secret, '203.0.113.9')).status).toBe(200);

    const logged = await waitFor(async () => {
      const { entries } = await stack.admin.usage('listRequestLog', {
        brand_id: t.brand.id,
        key_id: key.id,
        error_code: 'network_not_allowed',
        page_size: 10,
        page_token: '',
        since: '',
        until: '',
      });
      return entries.length >= 3 ? entries : undefined;
    });
    expect(logged.map((e) => [e.status, e.client_address])).toEqual(
      expect.arrayContaining([
        [403, '203.0.113.9'],
        [403, '127.0.0.1'],
      ]),
    );
    expect(logged.every((e) => e.key_id === key.id && e.key_prefix === key.prefix)).toBe(true);
  });

  // A review (2026-11-29): a refused request still took its address for the key's brand's, so
  // every keyless or unknown-key request from there was filed under the brand, and enough of
  // them trimmed the brand's own rows (the log keeps 10,000) with the refusal among them.
  it('a refusal from elsewhere files nothing else from that address under the brand', async () => {
    const t = await makeBrandWithKey(stack.admin);
    const { secret } = await stack.admin.createKey({
      brandId: t.brand.id,
      actorEmail: t.owner.email,
      name: 'Fenced elsewhere',
      allowedNetworks: ['198.51.100.0/24'],
    });
    const outside = '203.0.113.50';
    expect((await page(secret, outside)).status).toBe(403);
    for (let i = 0; i < 5; i++)
      expect((await page(`bk_live_${String(i).padStart(40, 'Z')}`, outside)).status).toBe(401);
    expect((await page('', outside)).status).toBe(401);
    const log = async () =>
      (
        await stack.admin.usage('listRequestLog', {
          brand_id: t.brand.id,
          key_id: '',
          error_code: '',
          page_size: 50,
          page_token: '',
          since: '',
          until: '',
        })
      ).entries;
    await waitFor(async () => (await log()).length >= 1);
    await new Promise((r) => setTimeout(r, 1_000)); // a few flushes more: whatever was filed is in
    expect((await log()).map((e) => e.error_code)).toEqual(['network_not_allowed']);
  });

  it('takes a change of networks at the next request, although the key is cached', async () => {
    const t = await makeBrandWithKey(stack.admin);
    expect((await page(t.secret, '203.0.113.50')).status).toBe(200);
    await stack.admin.access('setKeyNetworks', {
      key_id: t.key.id,
      allowed_networks: ['198.51.100.0/24'],
      actor_email: t.owner.email,
    });
    await waitFor(async () => ((await page(t.secret, '203.0.113.50')).status === 403 ? 1 : 0));
    expect((await page(t.secret, '198.51.100.1')).status).toBe(200);
    // and back to any network
    await stack.admin.access('setKeyNetworks', {
      key_id: t.key.id,
      allowed_networks: [],
      actor_email: '',
    });
    await waitFor(async () => ((await page(t.secret, '203.0.113.50')).status === 200 ? 1 : 0));
    const { entries } = await stack.admin.access('listActivity', {
      brand_id: t.brand.id,
      page_size: 10,
      page_token: '',
      actor: '',
      action: 'key.networks_set',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => e.summary)).toEqual([
      expect.stringMatching(/works from any network$/),
      expect.stringMatching(/works from 198\.51\.100\.0\/24$/),
    ]);
  });

  it.each([
    ['10.0.0.1/8', /host bits set: the network is 10\.0\.0\.0\/8/],
    ['example.com', /not an IPv4 or IPv6 address/],
    ['0.0.0.0/0', /every address/],
  ])('refuses %j at creation with validation_failed', async (network, message) => {
    const t = await makeBrandWithKey(stack.admin);
    const refused = await refusal(
      stack.admin.createKey({
        brandId: t.brand.id,
        actorEmail: t.owner.email,
        allowedNetworks: ['198.51.100.0/24', network],
      }),
    );
    expect(refused.code).toBe('validation_failed');
    expect(refused.message).toMatch(message);
  });
});

// A review of 2026-11-30: a list whose networks together cover a whole family, or whose items
// name no network, was stored (the second as "any network"); both are refused wherever a list
// is set, and under a policy requiring networks too.
describe('a list that binds a key to nothing', () => {
  const ALL = ['0.0.0.0/1', '128.0.0.0/1', '::/1', '8000::/1'];

  it.each([
    [ALL, /together cover every IPv4 and every IPv6 address/],
    [['0.0.0.0/1', '128.0.0.0/1', '2001:db8::/32'], /together cover every IPv4 address/],
    [[''], /names no network/],
    [['  '], /names no network/],
    [['::1.2.3.4'], /IPv4 written as IPv6 \(IPv4-mapped .* or IPv4-compatible/],
    // nearly everything (a second review that day): more than a /8's worth of IPv4 in all
    [
      ['0.0.0.0/1', '128.0.0.0/2', '2001:db8::/32'],
      /cover 3,221,225,472 IPv4 addresses; .* at most a \/8's worth/,
    ],
    [['2001:db8::/32', '2000::/15'], /cover a \/15's worth of IPv6 addresses/],
  ])('%j is refused at creation, when set, and under the policy', async (networks, message) => {
    const t = await makeBrandWithKey(stack.admin);
    const expectRefused = async (p: Promise<unknown>) => {
      const refused = await refusal(p);
      expect(refused.code).toBe('validation_failed');
      expect(refused.message).toMatch(/^allowed_networks: /);
      expect(refused.message).toMatch(message);
    };
    await expectRefused(
      stack.admin.createKey({
        brandId: t.brand.id,
        actorEmail: t.owner.email,
        allowedNetworks: networks,
      }),
    );
    await expectRefused(
      stack.admin.access('setKeyNetworks', {
        key_id: t.key.id,
        allowed_networks: networks,
        actor_email: '',
      }),
    );
    await stack.admin.access('setKeyPolicy', {
      brand_id: t.brand.id,
      require_key_networks: true,
      actor_email: t.owner.email,
    });
    await expectRefused(
      stack.admin.createKey({
        brandId: t.brand.id,
        actorEmail: t.owner.email,
        allowedNetworks: networks,
      }),
    );
    // nothing was stored: the brand has its one key, still open to any network
    const { keys } = await stack.admin.access('listKeys', { brand_id: t.brand.id });
    expect(keys.map((k) => [k.id, k.allowed_networks])).toEqual([[t.key.id, []]]);
  });
});

// A review of 2026-11-30: a roll copied the old key's stored networks as they were, so a list
// stored before today's rules (all of IPv4 but one address, or all of it) lived on in every
// replacement, under the brand's policy too. A roll reads them again by today's rules; a list
// they refuse stops the roll, naming the fix, and the old key is left as it was.
describe("a roll of a key whose stored networks today's rules refuse", () => {
  const storeUnchecked = (keyId: string, networks: string[]) =>
    stack.db.pool.query('update api_keys set allowed_networks = $2 where id = $1', [
      keyId,
      networks,
    ]);
  const roll = (keyId: string, actorEmail: string) =>
    stack.admin.access('rollKey', {
      key_id: keyId,
      old_key_expires_in: KeyOverlap.KEY_OVERLAP_ONE_HOUR,
      actor_email: actorEmail,
    });

  it.each([
    ['with the policy', true],
    ['without it', false],
  ])('is refused %s until the owner sets them; expiring it needs nothing', async (_, policy) => {
    const t = await makeBrandWithKey(stack.admin);
    if (policy) {
      await stack.admin.access('setKeyPolicy', {
        brand_id: t.brand.id,
        require_key_networks: true,
        actor_email: t.owner.email,
      });
    }
    const { key } = await stack.admin.createKey({
      brandId: t.brand.id,
      actorEmail: t.owner.email,
      name: 'Stored before',
      allowedNetworks: ['198.51.100.0/24'],
    });
    for (const stored of [
      ['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/2'], // all of IPv4 but nothing: refused at 1e025b6
      ['0.0.0.0/1', '198.51.100.0/24'], // half of IPv4: refused from this review on
    ]) {
      await storeUnchecked(key.id, stored);
      const refused = await refusal(roll(key.id, t.owner.email));
      expect(refused.code).toBe('precondition_failed');
      expect(refused.message).toMatch(
        /^Cannot roll Stored before: its allowed networks are refused by today's rules \(these networks together cover/,
      );
      expect(refused.message).toMatch(/set its networks .* and roll it again/);
    }
    // nothing was rolled: no replacement, no expiry on the old key
    const listed = await stack.admin.access('listKeys', { brand_id: t.brand.id });
    const named = listed.keys.filter((k) => k.name === 'Stored before');
    expect(named.map((k) => [k.id, k.expires_at ?? '', k.replaced_by ?? ''])).toEqual([
      [key.id, '', ''],
    ]);
    // the owner sets networks, and the roll goes through with them
    await stack.admin.access('setKeyNetworks', {
      key_id: key.id,
      allowed_networks: ['198.51.100.0/24'],
      actor_email: t.owner.email,
    });
    const rolled = await roll(key.id, t.owner.email);
    expect(rolled.key!.allowed_networks).toEqual(['198.51.100.0/24']);
  });

  it('a leaked key with such a list can still be expired at once', async () => {
    const t = await makeBrandWithKey(stack.admin);
    await storeUnchecked(t.key.id, ['0.0.0.0/1', '128.0.0.0/1']);
    const expired = await stack.admin.access('setKeyExpiry', {
      key_id: t.key.id,
      now: true,
      expires_at: '',
      actor_email: t.owner.email,
    });
    expect(expired.key!.expires_at ?? '').not.toBe('');
  });
});

describe("the brand's key policy", () => {
  it('requires networks of every new key and lists the keys without them', async () => {
    const t = await makeBrandWithKey(stack.admin);
    const set = (on: boolean) =>
      stack.admin.access('setKeyPolicy', {
        brand_id: t.brand.id,
        require_key_networks: on,
        actor_email: t.owner.email,
      });
    expect((await set(true)).require_key_networks).toBe(true);
    const listed = await stack.admin.access('listKeys', { brand_id: t.brand.id });
    expect(listed.require_key_networks).toBe(true);
    // the key created before the policy still works, and is the one without networks
    expect(listed.keys.filter((k) => k.allowed_networks.length === 0).map((k) => k.id)).toEqual([
      t.key.id,
    ]);
    expect((await page(t.secret, '203.0.113.9')).status).toBe(200);

    await expect(
      stack.admin.createKey({ brandId: t.brand.id, actorEmail: t.owner.email }),
    ).rejects.toMatchObject({ code: 'key_networks_required' });
    await expect(
      stack.admin.access('rollKey', {
        key_id: t.key.id,
        old_key_expires_in: KeyOverlap.KEY_OVERLAP_ONE_HOUR,
        actor_email: t.owner.email,
      }),
    ).rejects.toMatchObject({ code: 'key_networks_required' });
    const fenced = await stack.admin.createKey({
      brandId: t.brand.id,
      actorEmail: t.owner.email,
      allowedNetworks: ['198.51.100.0/24'],
    });
    await expect(
      stack.admin.access('setKeyNetworks', {
        key_id: fenced.key.id,
        allowed_networks: [],
        actor_email: '',
      }),
    ).rejects.toMatchObject({ code: 'key_networks_required' });
    // a roll keeps the networks
    const rolled = await stack.admin.access('rollKey', {
      key_id: fenced.key.id,
      old_key_expires_in: KeyOverlap.KEY_OVERLAP_NONE,
      actor_email: t.owner.email,
    });
    expect(rolled.key!.allowed_networks).toEqual(['198.51.100.0/24']);

    await set(false);
    await expect(
      stack.admin.createKey({ brandId: t.brand.id, actorEmail: t.owner.email }),
    ).resolves.toMatchObject({ key: { allowed_networks: [] } });
    const { entries } = await stack.admin.access('listActivity', {
      brand_id: t.brand.id,
      page_size: 10,
      page_token: '',
      actor: '',
      action: 'brand.key_policy_changed',
      subject_id: '',
      since: '',
      until: '',
    });
    expect(entries.map((e) => e.summary)).toEqual([
      'new keys may work from any network',
      'every new key must have allowed networks (1 active key has none)',
    ]);
  });
});
