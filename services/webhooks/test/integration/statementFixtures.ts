// What the tests of the webhooks statements share (their own database, a pool of their own
// on it, a 2xx attempt to record).
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { keepHistoryPartitions } from '../../src/maintenance/historyPartitions';
import type { AttemptRecord } from '../../src/outcome/attemptRepo';
import { attemptRecordOf } from '../../src/outcome/recordOutcome';
import type { SendResult } from '../../src/send/sender';

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
 * `count` receivers of `submission.approved` made a day ago, `<prefix><i>` for i from 0,
 * `perBrand` to a brand `<brandPrefix><i / perBrand>`.
 */
export async function insertReceivers(
  db: TestDatabase,
  r: { prefix: string; count: number; brandPrefix: string; perBrand: number },
): Promise<void> {
  await db.pool.query(
    `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     select $1 || i, $3 || (i / $4::int), 'https://receiver.example/hook', 'r' || i,
       '{submission.approved}', '\\x00', 'k1', 'test', now() - interval '1 day'
     from generate_series(0, $2::int - 1) as i`,
    [r.prefix, r.count, r.brandPrefix, r.perBrand],
  );
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

/** A receiver's quick 2xx, as the sender reports it. */
const ANSWERED_2XX: SendResult = {
  ok: true,
  status: 200,
  errorClass: undefined,
  error: undefined,
  excerpt: 'ok',
  response: { headers: [], body: 'ok', truncated: false, bytes: 2 },
  retryAfter: undefined,
  timedOut: false,
  durationMs: 3,
};

/** A claimed delivery's next attempt answered 2xx, as the worker records it. */
export const successOf = (d: Parameters<typeof attemptRecordOf>[0]): AttemptRecord =>
  attemptRecordOf(d, new Date(), ANSWERED_2XX, [
    { name: 'content-type', value: 'application/json' },
  ]);
