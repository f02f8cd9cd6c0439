import { KeyOverlap } from '@brand/proto/access/v1';
import { hashApiKey, revocationChannel } from '@brand/shared/keys';
import {
  API_TIMESTAMP,
  makeBrandWithKey,
  queueBehindRowLock,
  startStack,
  waitFor,
  type Stack,
} from '@brand/testkit';
import { Redis } from 'ioredis';

let stack: Stack;
let subscriber: Redis;
const announced: string[] = [];

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  subscriber = new Redis(stack.redisUrl);
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === revocationChannel(stack.redisKeyPrefix)) announced.push(message);
  });
  await subscriber.subscribe(revocationChannel(stack.redisKeyPrefix));
});
afterAll(async () => {
  subscriber?.disconnect();
  await stack?.close();
});

const roll = (keyId: string, overlap: KeyOverlap, actorEmail: string) =>
  stack.admin.access('rollKey', {
    key_id: keyId,
    old_key_expires_in: overlap,
    actor_email: actorEmail,
  });

const expire = (keyId: string, opts: { now?: boolean; expiresAt?: string } = {}) =>
  stack.admin.access('setKeyExpiry', {
    key_id: keyId,
    now: opts.now ?? false,
    expires_at: opts.expiresAt ?? '',
    actor_email: '',
  });

const authenticate = (secret: string) => stack.admin.authenticateKey(hashApiKey(secret), 'live');

const activityOf = async (brandId: string) =>
  (
    await stack.admin.access('listActivity', {
      brand_id: brandId,
      page_size: 50,
      page_token: '',
      actor: '',
      action: '',
      subject_id: '',
      since: '',
      until: '',
    })
  ).entries;

describe('RollKey', () => {
  it('creates the replacement with the same name, environment and permissions; the old key works until its expiry', async () => {
    const { brand, owner, key, secret } = await makeBrandWithKey(stack.admin, {
      keyName: 'Warehouse sync',
      permissions: ['campaigns:prepare'],
    });
    const before = Date.now();
    const res = await roll(key.id, KeyOverlap.KEY_OVERLAP_ONE_HOUR, owner.email);
    expect(res.secret).toMatch(/^bk_live_/);
    expect(res.key).toMatchObject({
      name: 'Warehouse sync',
      environment: key.environment,
      permissions: ['campaigns:prepare'],
      created_by: owner.email,
      expires_at: undefined,
    });
    expect(res.key!.id).not.toBe(key.id);
    expect(res.replaced).toMatchObject({ id: key.id, replaced_by: res.key!.id });
    expect(res.replaced!.expires_at).toMatch(API_TIMESTAMP);
    const expiresIn = Date.parse(res.replaced!.expires_at!) - before;
    expect(expiresIn).toBeGreaterThan(3_590_000);
    expect(expiresIn).toBeLessThan(3_610_000);

    // Both work during the overlap; the old key's identity carries its expiry.
    await expect(authenticate(secret)).resolves.toMatchObject({
      key_id: key.id,
      expires_at: res.replaced!.expires_at,
    });
    await expect(authenticate(res.secret)).resolves.toMatchObject({ key_id: res.key!.id });

    const keys = await stack.admin.listKeys(brand.id);
    expect(keys.map((k) => k.id).sort()).toEqual([key.id, res.key!.id].sort());
    expect(await activityOf(brand.id)).toContainEqual(
      expect.objectContaining({
        action: 'key.rolled',
        subject_id: key.id,
        actor_email: owner.email,
        summary: expect.stringContaining(res.key!.prefix) as string,
      }),
    );
    // Gateways are told to forget the old key, so they read its expiry.
    await waitFor(() => announced.includes(hashApiKey(secret)), {
      timeoutMs: 2_000,
      what: 'the roll to be announced',
    });
  });

  // A hostile review (2026-11-29): the roll read the key's networks before locking it, so a
  // change of networks committing in between was lost on the replacement, which kept the old list.
  it('gives the replacement the networks the key has when the roll commits', async () => {
    const { owner, key } = await makeBrandWithKey(stack.admin);
    // The change of networks and then the roll queue behind a holder of the key's row.
    const [, rolled] = await queueBehindRowLock(
      stack.db.pool,
      { sql: 'select 1 from api_keys where id = $1 for update', params: [key.id] },
      [
        () =>
          stack.admin.access('setKeyNetworks', {
            key_id: key.id,
            allowed_networks: ['203.0.113.0/24'],
            actor_email: owner.email,
          }),
        () => roll(key.id, KeyOverlap.KEY_OVERLAP_ONE_HOUR, owner.email),
      ] as const,
    );
    expect(rolled.key!.allowed_networks).toEqual(['203.0.113.0/24']);
  });

  it('with no overlap, refuses the old key at once', async () => {
    const { owner, key, secret } = await makeBrandWithKey(stack.admin);
    const res = await roll(key.id, KeyOverlap.KEY_OVERLAP_NONE, owner.email);
    await expect(authenticate(secret)).rejects.toMatchObject({
      code: 'invalid_key',
      message: expect.stringMatching(/expired/) as string,
    });
    await expect(authenticate(res.secret)).resolves.toMatchObject({ key_id: res.key!.id });
  });

  it('keeps an earlier expiry the old key already had', async () => {
    const { owner, key } = await makeBrandWithKey(stack.admin);
    const soon = new Date(Date.now() + 600_000).toISOString();
    const set = await expire(key.id, { expiresAt: soon });
    const res = await roll(key.id, KeyOverlap.KEY_OVERLAP_SEVEN_DAYS, owner.email);
    expect(res.replaced!.expires_at).toBe(set.key!.expires_at);
  });

  it('refuses a revoked or expired key with key_inactive, and a second roll with precondition_failed', async () => {
    const revoked = await makeBrandWithKey(stack.admin);
    await stack.admin.revokeKey(revoked.key.id);
    await expect(
      roll(revoked.key.id, KeyOverlap.KEY_OVERLAP_ONE_HOUR, revoked.owner.email),
    ).rejects.toMatchObject({
      code: 'key_inactive',
      message: expect.stringMatching(/revoked/) as string,
    });

    const expired = await makeBrandWithKey(stack.admin);
    await expire(expired.key.id, { now: true });
    await expect(
      roll(expired.key.id, KeyOverlap.KEY_OVERLAP_ONE_HOUR, expired.owner.email),
    ).rejects.toMatchObject({
      code: 'key_inactive',
      message: expect.stringMatching(/expired/) as string,
    });

    const rolled = await makeBrandWithKey(stack.admin);
    const first = await roll(rolled.key.id, KeyOverlap.KEY_OVERLAP_ONE_DAY, rolled.owner.email);
    await expect(
      roll(rolled.key.id, KeyOverlap.KEY_OVERLAP_ONE_DAY, rolled.owner.email),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
      message: expect.stringContaining(first.key!.id) as string,
    });
    expect(await stack.admin.listKeys(rolled.brand.id)).toHaveLength(2);
  });

  it('is for owners: an admin, a stranger or no actor is insufficient_permission', async () => {
    const { brand, key } = await makeBrandWithKey(stack.admin);
    await stack.admin.addMember({ brandId: brand.id, email: 'admin@roll.test', role: 'admin' });
    for (const actor of ['admin@roll.test', 'stranger@roll.test', '']) {
      await expect(roll(key.id, KeyOverlap.KEY_OVERLAP_ONE_HOUR, actor)).rejects.toMatchObject({
        code: 'insufficient_permission',
      });
    }
    expect(await stack.admin.listKeys(brand.id)).toHaveLength(1);
  });

  it('refuses an unknown key with not_found and a missing overlap with validation_failed', async () => {
    const { owner, key } = await makeBrandWithKey(stack.admin);
    await expect(
      roll('key_doesnotexist', KeyOverlap.KEY_OVERLAP_ONE_HOUR, owner.email),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      roll(key.id, KeyOverlap.KEY_OVERLAP_UNSPECIFIED, owner.email),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('SetKeyExpiry', () => {
  it('expires a key now, once and for good', async () => {
    const { brand, key, secret } = await makeBrandWithKey(stack.admin);
    const res = await expire(key.id, { now: true });
    expect(res.key!.expires_at).toMatch(API_TIMESTAMP);
    await expect(authenticate(secret)).rejects.toMatchObject({ code: 'invalid_key' });
    await expect(expire(key.id, { now: true })).rejects.toMatchObject({ code: 'key_inactive' });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await expect(expire(key.id, { expiresAt: later })).rejects.toMatchObject({
      code: 'key_inactive',
    });
    expect(await activityOf(brand.id)).toContainEqual(
      expect.objectContaining({ action: 'key.expired', subject_id: key.id }),
    );
  });

  it('moves an expiry earlier, never later', async () => {
    const { brand, key, secret } = await makeBrandWithKey(stack.admin);
    const inADay = new Date(Date.now() + 86_400_000).toISOString();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const first = await expire(key.id, { expiresAt: inAnHour });
    expect(Date.parse(first.key!.expires_at!)).toBe(Date.parse(inAnHour));
    await expect(expire(key.id, { expiresAt: inADay })).rejects.toMatchObject({
      code: 'precondition_failed',
      message: expect.stringMatching(/only be moved earlier/) as string,
    });
    await expect(authenticate(secret)).resolves.toBeDefined();
    expect(await activityOf(brand.id)).toContainEqual(
      expect.objectContaining({ action: 'key.expiry_set', subject_id: key.id }),
    );
  });

  it.each([
    ['neither now nor a time', {}],
    ['both now and a time', { now: true, expiresAt: new Date(Date.now() + 60_000).toISOString() }],
    ['a past time', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['a time beyond ten years', { expiresAt: '2099-01-01T00:00:00Z' }],
    ['not a time', { expiresAt: 'tomorrow' }],
  ])('refuses %s with validation_failed', async (_, opts) => {
    const { key } = await makeBrandWithKey(stack.admin);
    await expect(expire(key.id, opts)).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('CreateKey with an expiry', () => {
  it('stores the expiry and refuses a past one', async () => {
    const { brand, owner } = await makeBrandWithKey(stack.admin);
    const at = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const create = (expiresAt: string) =>
      stack.admin.access('createKey', {
        brand_id: brand.id,
        name: 'Short-lived',
        environment: 1,
        actor_email: owner.email,
        allowed_networks: [],
        permissions: [],
        expires_at: expiresAt,
      });
    const res = await create(at);
    expect(Date.parse(res.key!.expires_at!)).toBe(Date.parse(at));
    await expect(authenticate(res.secret)).resolves.toMatchObject({ key_id: res.key!.id });
    await expect(create('2020-01-01T00:00:00Z')).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});
