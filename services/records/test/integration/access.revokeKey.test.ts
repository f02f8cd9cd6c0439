import { hashApiKey, revocationChannel } from '@brand/shared/keys';
import { API_TIMESTAMP, makeBrandWithKey, startStack, type Stack } from '@brand/testkit';
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

describe('RevokeKey', () => {
  it('makes the key invalid_key at once', async () => {
    const { owner, key, secret } = await makeBrandWithKey(stack.admin);
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).resolves.toBeDefined();
    const revoked = await stack.admin.revokeKey(key.id, owner.email.toUpperCase());
    expect(revoked).toMatchObject({
      id: key.id,
      revoked_at: expect.stringMatching(API_TIMESTAMP) as string,
    });
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
    });
    const { rows } = await stack.db.pool.query('select revoked_by from api_keys where id = $1', [
      key.id,
    ]);
    expect(rows[0]).toEqual({ revoked_by: owner.email });
  });

  it('keeps the first revoked_at when revoked twice', async () => {
    const { brand, owner, key, secret } = await makeBrandWithKey(stack.admin);
    const first = await stack.admin.revokeKey(key.id, owner.email);
    await new Promise((r) => setTimeout(r, 20));
    const second = await stack.admin.revokeKey(key.id);
    expect(second.revoked_at).toBe(first.revoked_at);
    const [listed] = await stack.admin.listKeys(brand.id);
    expect(listed!.revoked_at).toBe(first.revoked_at);
    const { rows } = await stack.db.pool.query('select revoked_by from api_keys where id = $1', [
      key.id,
    ]);
    expect(rows[0]).toEqual({ revoked_by: owner.email });
    await expect(stack.admin.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
      code: 'invalid_key',
    });
  });

  it('announces the key hash on <prefix>keys:revoked within a second', async () => {
    const { key, secret } = await makeBrandWithKey(stack.admin);
    const started = Date.now();
    await stack.admin.revokeKey(key.id);
    const hash = hashApiKey(secret);
    while (!announced.includes(hash) && Date.now() - started < 1_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(announced).toContain(hash);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('refuses an unknown key with not_found and a malformed id with validation_failed', async () => {
    await expect(stack.admin.revokeKey('key_doesNotExist0000000')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(stack.admin.revokeKey('br_notAKeyId')).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('leaves the other keys of the brand working', async () => {
    const { brand, owner, key } = await makeBrandWithKey(stack.admin);
    const other = await stack.admin.createKey({ brandId: brand.id, actorEmail: owner.email });
    await stack.admin.revokeKey(key.id);
    await expect(
      stack.admin.authenticateKey(hashApiKey(other.secret), 'live'),
    ).resolves.toMatchObject({ key_id: other.key.id });
  });
});
