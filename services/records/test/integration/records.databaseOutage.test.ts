import { status, type ServiceError } from '@grpc/grpc-js';
import {
  checkGrpcHealth,
  createAdminClient,
  makeRecords,
  startRecords,
  startStack,
  stopAllServices,
  tcpProxy,
  waitFor,
  type AdminClient,
  type RecordsProcess,
  type Stack,
  type TcpProxy,
} from '@brand/testkit';

let stack: Stack;
let proxy: TcpProxy;
let records: RecordsProcess;
let client: AdminClient;
let brandId: string;

beforeAll(async () => {
  stack = await startStack({ gateways: 0 });
  proxy = await tcpProxy({ host: '127.0.0.1', port: 5432 });
  // a second records process whose only way to the database is through the proxy
  records = await startRecords({
    databaseUrl: proxy.rewrite(stack.db.url),
    redisKeyPrefix: stack.redisKeyPrefix,
  });
  client = createAdminClient(records.address);
  brandId = (await stack.admin.createBrand()).brand.id;
  await makeRecords(stack.db.pool, brandId, 'campaigns', 3);
});

afterAll(async () => {
  client?.close();
  await stopAllServices();
  await proxy?.close();
  await stack?.close();
});

const list = () => client.listPageRecords({ brand_id: brandId, resource: 'campaigns' });

describe('records while PostgreSQL is unreachable', () => {
  it('serves and reports SERVING while the database answers', async () => {
    expect((await list()).records).toHaveLength(3);
    await waitFor(async () => (await checkGrpcHealth(records.address)) === 'SERVING', {
      timeoutMs: 3_000,
      what: 'SERVING',
    });
  });

  it('fails calls fast with service_unavailable, stays up, and reports NOT_SERVING', async () => {
    await proxy.pause();

    const started = Date.now();
    const err = await list().then(
      () => {
        throw new Error('ListRecordsPage succeeded with the database down');
      },
      (e: Error & { code: string; cause: ServiceError }) => e,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(err.code).toBe('service_unavailable');
    expect(err.cause.code).toBe(status.UNAVAILABLE);
    for (const leak of [
      /select/i,
      /127\.0\.0\.1/,
      /5432/,
      /ECONN/,
      /brand_t_/,
      /postgres/i,
      /at \w+/,
    ]) {
      expect(err.message).not.toMatch(leak);
    }

    // admin RPCs are refused the same way, and an outage never looks like a bad key
    await expect(client.createBrand()).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(client.authenticateKey('a'.repeat(64), 'live')).rejects.toMatchObject({
      code: 'service_unavailable',
    });

    await waitFor(async () => (await checkGrpcHealth(records.address)) === 'NOT_SERVING', {
      timeoutMs: 3_000,
      what: 'NOT_SERVING',
    });
    for (const service of ['brand.records.v1.RecordsService', 'brand.access.v1.AccessService']) {
      expect(await checkGrpcHealth(records.address, service)).toBe('NOT_SERVING');
    }
    const alive = await Promise.race([
      records.exited.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), 100)),
    ]);
    expect(alive).toBe(true);
  });

  it('recovers by itself once the database is back', async () => {
    await proxy.resume();
    const page = await waitFor(() => list().catch(() => null), {
      timeoutMs: 5_000,
      what: 'ListRecordsPage to succeed again',
    });
    expect(page.records).toHaveLength(3);
    await waitFor(async () => (await checkGrpcHealth(records.address)) === 'SERVING', {
      timeoutMs: 3_000,
      what: 'SERVING again',
    });
    expect((await client.createBrand()).brand.id).toMatch(/^br_/);
  });
});
