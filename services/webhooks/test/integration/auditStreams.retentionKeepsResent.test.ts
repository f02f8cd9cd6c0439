import { withTransaction } from '@brand/shared/db';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import {
  deleteExpiredRequestEntries,
  REQUEST_ENTRY_RETENTION_MS,
} from '../../src/audit/trailRetention';
import { insertBatch } from '../../src/streams/batchRepo';
import {
  datadogStream,
  deliveredThrough,
  entryPositions,
  oldRequestEntries,
  streamDeps,
} from '../support/auditStreamFixtures';

// The request-entry retention against an entry sent again (requeueSetAside). A review of
// c980ad73 (2026-12-01): a set-aside entry is below the stream's stream_delivered_through, so
// once 7 days old the retention deleted it while its resent delivery was still pending
// (retrying); the next attempt read no entries, sent an empty body, and a 2xx recorded the run
// as delivered. An entry a pending delivery of a stream covers is now kept until it is sent.

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

/** A delivery of `stream` carrying the run `from`..`through`, left `status`. */
async function run(
  stream: { id: string; brand_id: string },
  from: number,
  through: number,
  status: 'pending' | 'failed',
) {
  const batch = await withTransaction(db.pool, (c) =>
    insertBatch(c, stream, { range: { from, through } }),
  );
  await db.pool.query(`update deliveries set status = $2 where id = $1`, [batch.id, status]);
}

it('keeps an old request entry a pending delivery of a stream covers, deletes those beside it', async () => {
  const stream = await datadogStream(streamDeps(db.pool));
  // five request entries stored 8 days ago, all below what the stream has delivered through
  await oldRequestEntries(db.pool, stream.brand_id, [1, 2, 3, 4, 5]);
  await deliveredThrough(db.pool, stream.id, 5);
  await run(stream, 2, 2, 'pending'); // a set-aside entry sent again, still retrying
  await run(stream, 3, 3, 'failed'); // a set-aside entry not sent again
  await run(stream, 4, 5, 'pending'); // a run of two still pending

  const deleted = await deleteExpiredRequestEntries(
    db.pool,
    new Date(Date.now() - REQUEST_ENTRY_RETENTION_MS),
    100,
  );

  expect(await entryPositions(db.pool, stream.brand_id)).toEqual([2, 4, 5]);
  expect(deleted).toBe(2);
});
