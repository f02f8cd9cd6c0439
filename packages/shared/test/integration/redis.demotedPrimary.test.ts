// A Redis failover that leaves a client's connection on the demoted primary (a replica now, as
// a managed Redis's endpoint moves to the promoted one): every write is refused READONLY, and
// ioredis keeps the connection for good. The client must reconnect on READONLY, so its next
// connection goes where the endpoint leads now (a review of 2026-11-29 found it never did).
import { createLogger } from '@brand/shared/logger';
import { createRedisClient, type Redis } from '@brand/shared/redis';
import { startOwnRedis, stopOwnRedises, waitFor, type OwnRedis } from '@brand/testkit';
import { Redis as RawRedis } from 'ioredis';

let primary: OwnRedis;
let other: OwnRedis;
let client: Redis;
let admin: RawRedis;

beforeAll(async () => {
  [primary, other] = await Promise.all([startOwnRedis(), startOwnRedis()]);
  client = createRedisClient({
    url: primary.url,
    name: 'demoted-primary-test',
    log: createLogger({ service: 'test', level: 'silent' }),
    queueWhileOffline: false,
    commandTimeoutMs: 2_000,
  });
  admin = new RawRedis(primary.url);
  await waitFor(() => client.status === 'ready', { timeoutMs: 5_000, what: 'the client ready' });
});
afterAll(() => {
  client?.disconnect();
  admin?.disconnect();
  stopOwnRedises();
});

describe('a Redis client on a demoted primary', () => {
  it('reconnects once a write is refused READONLY', async () => {
    await client.set('k', '1');
    const before = await client.client('ID');
    await admin.replicaof('127.0.0.1', other.port);
    await expect(client.set('k', '2')).rejects.toThrow(/READONLY/);
    await admin.replicaof('NO', 'ONE');
    await waitFor(() => client.status === 'ready', { timeoutMs: 5_000, what: 'the client ready' });
    // a new connection: the one that met the replica was dropped
    await waitFor(
      async () => {
        try {
          return (await client.client('ID')) !== before;
        } catch {
          return false; // reconnecting
        }
      },
      { timeoutMs: 5_000, what: 'a new connection' },
    );
    // and it writes again: once ready (the ID above can come from a connection that ioredis
    // then replaces, and a command meanwhile is refused offline: a fresh-clone CI, 2026-11-30)
    await waitFor(
      async () => {
        try {
          return (await client.set('k', '3')) === 'OK';
        } catch {
          return false; // reconnecting
        }
      },
      { timeoutMs: 5_000, what: 'a write accepted' },
    );
    expect(await client.get('k')).toBe('3');
  });
});
