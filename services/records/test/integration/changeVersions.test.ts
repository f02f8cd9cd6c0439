// Records' change versions, against a real records process, PostgreSQL and Redis. Every write of a
// record of a resource advances that brand's version in the same transaction (triggers: inserts,
// status changes, deletes; one step per statement), ListRecordsPage returns it on request, and
// records publishes it to Redis before a business change is acknowledged; the sweep publishes
// writes made by anyone else, and a publish never moves a key back.
import { publishChangeVersions } from '@brand/shared/changeVersions';
import { createLogger } from '@brand/shared/logger';
import { closeRedis, createRedisClient, type Redis } from '@brand/shared/redis';
import {
  makePendingSubmissions,
  makeRecords,
  startStack,
  waitFor,
  type Stack,
} from '@brand/testkit';

let stack: Stack;
let redis: Redis;
let brandId: string;

beforeAll(async () => {
  stack = await startStack({ gateways: 0, recordsEnv: { CHANGE_VERSION_SWEEP_MS: '200' } });
  brandId = (await stack.admin.createBrand()).brand.id;
  redis = createRedisClient({
    url: stack.redisUrl,
    name: 'test',
    log: createLogger({ service: 'test', level: 'silent' }),
    queueWhileOffline: true,
  });
});
afterAll(async () => {
  await closeRedis(redis);
  await stack?.close();
});

const versionOf = async (resource: 'submissions' | 'payouts'): Promise<number> =>
  Number(
    (
      await stack.admin.listRecordsPage({
        brand_id: brandId,
        resource,
        limit: 1,
        with_change_version: true,
      })
    ).change_version,
  );
const published = (resource: string): Promise<string | null> =>
  redis.get(`${stack.redisKeyPrefix}rv:${brandId}:${resource}`);

it('is 0 before any write, and absent unless asked for', async () => {
  expect(await versionOf('payouts')).toBe(0);
  const page = await stack.admin.listRecordsPage({ brand_id: brandId, resource: 'payouts' });
  expect(page.change_version).toBeUndefined();
});

it('advances once per writing statement, whatever the writer, and the sweep publishes it', async () => {
  const before = await versionOf('submissions');
  const [a, b] = await makePendingSubmissions(stack.db.pool, brandId, 2);
  const afterInsert = await versionOf('submissions');
  expect(afterInsert).toBeGreaterThan(before);
  await stack.db.pool.query(`update records.submissions set views = views + 1 where id = any($1)`, [
    [a!.id, b!.id],
  ]);
  const afterUpdate = await versionOf('submissions');
  expect(afterUpdate).toBeGreaterThan(afterInsert);
  // another resource of the brand is another version
  await makeRecords(stack.db.pool, brandId, 'payouts', 1);
  expect(await versionOf('submissions')).toBe(afterUpdate);
  await waitFor(async () => (await published('submissions')) === String(afterUpdate), {
    what: 'the sweep publishes the version',
  });
});

it('a business change is published before it is acknowledged, and a publish never moves a key back', async () => {
  const [pending] = await makePendingSubmissions(stack.db.pool, brandId, 1);
  await stack.admin.records('approveSubmission', { submission_id: pending!.id });
  const version = await versionOf('submissions');
  expect(await published('submissions')).toBe(String(version));
  // a stale value written over it (a late publish) is refused by the script
  await publishChangeVersions(redis, stack.redisKeyPrefix, [
    { brandId, resource: 'submissions', version: String(version - 1) },
  ]);
  expect(await published('submissions')).toBe(String(version));
});

it('concurrent changes of one brand all commit, and the published version counts every one', async () => {
  const pending = await makePendingSubmissions(stack.db.pool, brandId, 20);
  const before = await versionOf('submissions');
  await Promise.all(
    pending.map((s) => stack.admin.records('approveSubmission', { submission_id: s.id })),
  );
  const after = await versionOf('submissions');
  expect(after).toBe(before + 20);
  await waitFor(async () => (await published('submissions')) === String(after));
});
