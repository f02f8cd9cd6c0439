import { hashApiKey } from '@brand/shared/keys';
import {
  createAdminClient,
  makeBrandWithKey,
  startRecords,
  startStack,
  stopAllServices,
  tcpProxy,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
});
afterAll(async () => {
  await stopAllServices();
  await stack?.close();
});

describe('RevokeKey while Redis is unreachable', () => {
  it('still revokes (the announcement is best effort) and answers promptly', async () => {
    const proxy = await tcpProxy({ host: '127.0.0.1', port: 6379 });
    const records = await startRecords({
      databaseUrl: stack.db.url,
      redisUrl: proxy.url('redis'),
      redisKeyPrefix: stack.redisKeyPrefix,
    });
    const client = createAdminClient(records.address);
    try {
      const { key, secret } = await makeBrandWithKey(client);
      await proxy.pause();

      const started = Date.now();
      const revoked = await client.revokeKey(key.id);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(revoked.revoked_at).toBeDefined();
      await expect(client.authenticateKey(hashApiKey(secret), 'live')).rejects.toMatchObject({
        code: 'invalid_key',
      });
      expect(records.logs().join('\n')).toMatch(/could not announce key revocation/);
    } finally {
      client.close();
      await proxy.close();
    }
  });
});
