import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { resendSetAside } from '../../src/streams/resendSetAside';
import { listStreams } from '../../src/streams/streamService';
import { datadogStream, DAY, OWNER, setAside, streamDeps } from '../support/auditStreamFixtures';

// A stream's set-aside entries as its row counts them (set_aside: the panel and its "Send them
// again…", brandctl's hint) against what ResendSetAside queues. A review of c980ad73
// (2026-12-01): the resend takes only deliveries within DELIVERY_HISTORY_RETENTION_MS (a week
// past it is dropped whole), the count took every one still stored, so for up to a week an
// entry was offered, and the resend refused it as "queued or delivered", which it was not.

let db: TestDatabase;

const deps = (historyRetentionMs: number) => streamDeps(db.pool, { historyRetentionMs });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

/** A Datadog stream with one entry (position 2) set aside, its delivery `ageMs` old. */
async function streamWithOneSetAside(ageMs: number) {
  const stream = await datadogStream(deps(30 * DAY));
  const brandId = stream.brand_id;
  for (const seq of [1, 2, 3])
    await db.pool.query(
      `insert into audit_entries (brand_id, seq, id, kind, created_at, entry_json)
       values ($1, $2, $3, 'activity', now(), '{}')`,
      [brandId, seq, `aud_${randomBytes(8).toString('hex')}`],
    );
  // as setAsideRun leaves it: failed, one position, not the stream's current run
  await setAside(db.pool, stream, 2, 3);
  await new Promise((resolve) => setTimeout(resolve, ageMs));
  return stream;
}

it('counts as set aside only what a resend would send, and says why an older one is not', async () => {
  const stream = await streamWithOneSetAside(50);
  // the delivery within the history kept: counted, and sent again
  expect((await listStreams(db.pool, stream.brand_id, 30 * DAY))[0]!.set_aside).toBe(1);
  // the same delivery past the history kept (a week older than it, not yet dropped)
  const past = deps(10);
  expect((await listStreams(db.pool, stream.brand_id, 10))[0]!.set_aside).toBe(0);
  await expect(resendSetAside(past, stream, OWNER)).rejects.toMatchObject({
    code: 'precondition_failed',
    message: expect.not.stringContaining('queued or delivered') as unknown,
  });
  const sent = await resendSetAside(deps(30 * DAY), stream, OWNER);
  expect(sent).toMatchObject({ requeued: 1, remaining: 0 });
});
