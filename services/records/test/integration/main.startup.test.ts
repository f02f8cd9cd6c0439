import {
  checkGrpcHealth,
  createTestDatabase,
  startRecords,
  stopAllServices,
  tcpProxy,
  uniqueRedisPrefix,
  waitFor,
  type TestDatabase,
} from '@brand/testkit';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await stopAllServices();
  await db?.close();
});

describe('records startup', () => {
  it('exits 1 on bad configuration, naming each bad variable without echoing secrets', async () => {
    const secret = 'too-short-secret';
    const err = await startRecords({
      databaseUrl: 'not a url',
      redisKeyPrefix: uniqueRedisPrefix(),
      env: { CURSOR_SECRET: secret, GRPC_PORT: 'http' },
    }).then(
      () => {
        throw new Error('records started with a bad configuration');
      },
      (e: Error) => e,
    );
    expect(err.message).toMatch(/records exited \(1\) before listening/);
    for (const name of ['DATABASE_URL', 'CURSOR_SECRET', 'GRPC_PORT']) {
      expect(err.message).toContain(name);
    }
    expect(err.message).not.toContain(secret);
  });

  it('starts without its database, NOT_SERVING until the database answers', async () => {
    const proxy = await tcpProxy({ host: '127.0.0.1', port: 5432 });
    try {
      await proxy.pause();
      const records = await startRecords({
        databaseUrl: proxy.rewrite(db.url),
        redisKeyPrefix: uniqueRedisPrefix(),
      });
      // several probes (every 500 ms) fail while the database is unreachable
      await new Promise((r) => setTimeout(r, 1_200));
      expect(await checkGrpcHealth(records.address)).toBe('NOT_SERVING');
      expect(records.logs().join('\n')).toMatch(/database health changed/);
      await proxy.resume();
      await waitFor(async () => (await checkGrpcHealth(records.address)) === 'SERVING', {
        timeoutMs: 5_000,
        what: 'SERVING once the database answers',
      });
      expect(await records.stop()).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
