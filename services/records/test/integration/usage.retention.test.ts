// What records keeps of usage, against a real PostgreSQL: a flush retried with the same batch id is
// counted once, counts add up per minute and per hour, and the retention sweep deletes minute rows
// past 24 hours, hour rows and log entries past 7 days, and each brand's log beyond its newest
// 10,000, with plain DELETEs (no autovacuum needed).
import { UsageSurface, type RecordUsageRequest } from '@brand/proto/access/v1/usage';
import { ENVIRONMENTS } from '@brand/shared/enums';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { recordUsage } from '../../src/usage/recordUsage';
import { sweepUsage } from '../../src/usage/retentionSweep';
import { listRequestLog } from '../../src/usage/usageQueries';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const count = async (sql: string, params: unknown[] = []) =>
  Number(
    (await db.pool.query<{ n: string }>(`select count(*)::text as n from ${sql}`, params)).rows[0]!
      .n,
  );

it('stores a retried flush once and adds counts per minute and per hour', async () => {
  const minute = Math.floor(Date.now() / 3_600_000) * 3600 + 60;
  const c = (m: number, n: number) => ({
    brand_id: 'br_sum',
    key_id: 'key_sum',
    key_hash: '',
    address_brand_id: '',
    minute: m,
    surface: UsageSurface.USAGE_SURFACE_REST,
    outcome: '2xx',
    count: n,
  });
  const batch = (id: string, counts: RecordUsageRequest['counts']): RecordUsageRequest => ({
    environment: ENVIRONMENTS.toProto('live'),
    batch_id: id,
    counts,
    requests: [],
  });
  await recordUsage(db.pool, batch('batch_one_1', [c(minute, 3), c(minute + 60, 4)]));
  await recordUsage(db.pool, batch('batch_one_1', [c(minute, 3), c(minute + 60, 4)]));
  await recordUsage(db.pool, batch('batch_two_2', [c(minute, 5)]));
  const minutes = await db.pool.query<{ n: string }>(
    "select count::text as n from usage_minutes where brand_id = 'br_sum' order by minute",
  );
  expect(minutes.rows.map((r) => Number(r.n))).toEqual([8, 4]);
  const hours = await db.pool.query<{ n: string }>(
    "select count::text as n from usage_hours where brand_id = 'br_sum'",
  );
  expect(hours.rows.map((r) => Number(r.n))).toEqual([12]);
  await expect(
    recordUsage(db.pool, batch('batch_bad_3', [{ ...c(minute, 1), outcome: '4xx:<script>' }])),
  ).rejects.toMatchObject({ code: 'validation_failed' });
});

it('sweeps what is past its retention and trims a brand’s log to its newest 10,000', async () => {
  await db.pool.query(`
    insert into usage_minutes (brand_id, key_id, minute, surface, outcome, count) values
      ('br_old', '', now() - interval '25 hours', 'rest', '2xx', 1),
      ('br_old', '', now() - interval '23 hours', 'rest', '2xx', 1);
    insert into usage_hours (brand_id, key_id, hour, surface, outcome, count) values
      ('br_old', '', now() - interval '8 days', 'rest', '2xx', 1),
      ('br_old', '', now() - interval '6 days', 'rest', '2xx', 1);
    insert into request_log (brand_id, at, method, path, status, error_code, request_id, surface)
      select 'br_full', now() - make_interval(secs => i), 'GET', '/api/v1/campaigns', 401, 'missing_key', 'req_' || i, 'rest'
        from generate_series(1, 10005) as i;
    insert into request_log (brand_id, at, method, path, status, error_code, request_id, surface)
      values ('br_old', now() - interval '8 days', 'GET', '/', 404, 'not_found', 'req_old', 'rest'),
             ('br_old', now() - interval '1 day', 'GET', '/', 404, 'not_found', 'req_new', 'rest');
  `);
  const removed = await sweepUsage(db.pool, ['br_full']);
  expect(removed).toBe(1 + 1 + 1 + 5);
  expect(await count("usage_minutes where brand_id = 'br_old'")).toBe(1);
  expect(await count("usage_hours where brand_id = 'br_old'")).toBe(1);
  expect(await count("request_log where brand_id = 'br_old'")).toBe(1);
  expect(await count("request_log where brand_id = 'br_full'")).toBe(10_000);
  // The newest are kept: the five oldest (req_10001..req_10005) are gone.
  expect(await count("request_log where brand_id = 'br_full' and request_id = 'req_10001'")).toBe(
    0,
  );
  expect(await count("request_log where brand_id = 'br_full' and request_id = 'req_1'")).toBe(1);
  expect(await sweepUsage(db.pool, ['br_full'])).toBe(0);
});

it('pages the log newest first by (time, id), filters by code, refuses a bad token and a service caller', async () => {
  await db.pool.query(`
    insert into brands (id, name, tier, verified) values ('br_pages', 'Pages', 'plus', true);
    insert into request_log (brand_id, at, method, path, status, error_code, request_id, surface, reason)
      values ('br_pages', '2026-11-23T10:00:00Z', 'GET', '/a', 401, 'missing_key', 'req_a', 'rest', 'no_key'),
             ('br_pages', '2026-11-23T10:00:01Z', 'GET', '/b', 404, 'unknown_resource', 'req_b', 'rest', ''),
             ('br_pages', '2026-11-23T10:00:01Z', 'GET', '/c', 401, 'missing_key', 'req_c', 'rest', 'no_key');
  `);
  const list = (actor: Parameters<typeof listRequestLog>[1], pageToken = '', errorCode = '') =>
    listRequestLog(db.pool, actor, {
      brandId: 'br_pages',
      keyId: '',
      errorCode,
      pageSize: 2,
      pageToken,
    });
  const operator = { kind: 'operator' } as const;
  const first = await list(operator);
  expect(first.entries.map((e) => e.request_id)).toEqual(['req_c', 'req_b']);
  expect(first.next_page_token).not.toBe('');
  const second = await list(operator, first.next_page_token);
  expect(second.entries.map((e) => [e.request_id, e.reason])).toEqual([['req_a', 'no_key']]);
  expect(second.next_page_token).toBe('');
  expect((await list(operator, '', 'missing_key')).entries.map((e) => e.request_id)).toEqual([
    'req_c',
    'req_a',
  ]);
  await expect(list(operator, 'not a token')).rejects.toMatchObject({ code: 'validation_failed' });
  // A service caller (the gateway's credential) may not read it.
  await expect(list({ kind: 'service' })).rejects.toMatchObject({
    code: 'insufficient_permission',
  });
});
