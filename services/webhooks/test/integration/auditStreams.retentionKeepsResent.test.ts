import { randomBytes } from 'node:crypto';
import { withTransaction } from '@brand/shared/db';
import { SecretBox } from '@brand/shared/secrets';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import {
  deleteExpiredRequestEntries,
  REQUEST_ENTRY_RETENTION_MS,
} from '../../src/audit/trailRetention';
import { insertBatch } from '../../src/streams/batchRepo';
import { addStream } from '../../src/streams/streamService';

// The request-entry retention against an entry sent again (requeueSetAside). A review of
// c980ad73 (2026-12-01): a set-aside entry is below the stream's stream_delivered_through, so
// once 7 days old the retention deleted it while its resent delivery was still pending
// (retrying); the next attempt read no entries, sent an empty body, and a 2xx recorded the run
// as delivered. An entry a pending delivery of a stream covers is now kept until it is sent.

const OWNER = { memberId: 'mem_owner', email: 'owner@example.com' };
const DAY = 86_400_000;
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
  const brandId = `br_${randomBytes(6).toString('hex')}`;
  const { stream } = await addStream(
    {
      pool: db.pool,
      box: new SecretBox(randomBytes(32).toString('base64')),
      resolve: () => Promise.resolve(['93.184.216.34']),
      allowLoopback: false,
      maxPerBrand: 3,
      historyRetentionMs: 30 * DAY,
    },
    {
      brandId,
      kind: 'datadog',
      label: 'Datadog',
      url: '',
      token: '7f3c2a1be4d94c0f8e6a5b4c3d2e1f00',
      datadogSite: 'datadoghq.eu',
      splunkIndex: '',
      actorEmail: OWNER.email,
    },
    OWNER,
  );
  // five request entries stored 8 days ago, all below what the stream has delivered through
  for (const seq of [1, 2, 3, 4, 5])
    await db.pool.query(
      `insert into audit_entries (brand_id, seq, id, kind, created_at, received_at, entry_json)
       values ($1, $2, $3, 'request', now() - interval '8 days', now() - interval '8 days', '{}')`,
      [brandId, seq, `aud_${randomBytes(8).toString('hex')}`],
    );
  await db.pool.query(`update receivers set stream_delivered_through = 5 where id = $1`, [
    stream.id,
  ]);
  await run(stream, 2, 2, 'pending'); // a set-aside entry sent again, still retrying
  await run(stream, 3, 3, 'failed'); // a set-aside entry not sent again
  await run(stream, 4, 5, 'pending'); // a run of two still pending

  const deleted = await deleteExpiredRequestEntries(
    db.pool,
    new Date(Date.now() - REQUEST_ENTRY_RETENTION_MS),
    100,
  );

  const left = await db.pool.query<{ seq: string }>(
    `select seq from audit_entries where brand_id = $1 order by seq`,
    [brandId],
  );
  expect(left.rows.map((r) => Number(r.seq))).toEqual([2, 4, 5]);
  expect(deleted).toBe(2);
});
