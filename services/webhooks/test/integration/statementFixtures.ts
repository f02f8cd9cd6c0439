// What the tests of the webhooks statements share (their own database, a pool of their own
// on it, a 2xx attempt to record).
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { keepHistoryPartitions } from '../../src/maintenance/historyPartitions';
import type { AttemptRecord } from '../../src/outcome/attemptRepo';

const DAY = 86_400_000;

/** A test database with the history partitions the keeper makes (this week's among them). */
export async function historyDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await keepHistoryPartitions(db.pool, {
    historyMs: 30 * DAY,
    detailMs: 14 * DAY,
    batchSize: 1000,
  });
  return db;
}

/**
 * A pool of the test's own on `db` with the webhooks schema first (`max` 1: one connection,
 * which prepares each statement once and plans it by its own counts). pool.end() resolves before
 * its connections have closed: the database's drop in afterAll may end one still closing, which
 * is no error of the test's.
 */
export function webhooksPool(db: TestDatabase, max?: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: db.url,
    ...(max === undefined ? {} : { max }),
    options: '-c search_path=webhooks',
  });
  pool.on('error', () => undefined);
  return pool;
}

/** A first attempt of a delivery, answered 2xx. */
export const firstSuccess = (d: {
  deliveryId: string;
  eventAt: string;
  receiverId: string;
}): AttemptRecord => ({
  ...d,
  number: 1,
  startedAt: new Date(),
  durationMs: 3,
  statusCode: 200,
  errorClass: null,
  errorMessage: null,
  excerpt: 'ok',
  test: false,
  healthClass: null,
  latencySlot: 0,
  requestHeaders: [{ name: 'content-type', value: 'application/json' }],
  response: { headers: [], body: 'ok', truncated: false, bytes: 2 },
});
