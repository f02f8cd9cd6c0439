import { createTestDatabase, waitFor, type TestDatabase } from '@brand/testkit';
import {
  deleteExpiredRequestEntries,
  REQUEST_ENTRY_RETENTION_MS,
} from '../../src/audit/trailRetention';
import { resendSetAside } from '../../src/streams/resendSetAside';
import { requeueSetAside } from '../../src/streams/setAside';
import {
  datadogStream,
  DAY,
  entryPositions,
  oldRequestEntries,
  OWNER,
  setAside,
  streamDeps,
} from '../support/auditStreamFixtures';

// A resend of a set-aside entry against a retention pass deleting that entry at the same
// instant (a review of 08e46f07). The resend read the entry as still there (the pass's delete
// not yet committed) and queued its delivery, or the pass read no pending delivery (the
// resend's not yet committed) and deleted the entry: either way a delivery was queued for an
// entry that was gone. Both now take the trail lock (trailLock.ts), so one waits for
// the other and then sees what it did. Each case holds one side open in a transaction of the
// test's own and shows the other waiting, then the outcome once it is let go.

let db: TestDatabase;

const deps = () => streamDeps(db.pool);

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

/**
 * A Datadog stream sent through 3 whose entry 2 is set aside (a failed run of one position),
 * its three request entries 8 days old: past the retention, 2 kept only while it is owed.
 */
async function streamWithOldSetAside() {
  const stream = await datadogStream(deps());
  await oldRequestEntries(db.pool, stream.brand_id, [1, 2, 3]);
  const deliveryId = await setAside(db.pool, stream, 2, 3);
  return { stream, deliveryId };
}

const sweep = () =>
  deleteExpiredRequestEntries(db.pool, new Date(Date.now() - REQUEST_ENTRY_RETENTION_MS), 100);

/** Until a session of this database waits on a lock of type `lock` (pg_locks.locktype). */
const waiting = (lock: 'advisory' | 'transactionid') =>
  waitFor(
    async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where not l.granted and l.locktype = $1 and a.datname = current_database()`,
        [lock],
      );
      return rows[0]!.n > 0;
    },
    { timeoutMs: 5_000, intervalMs: 20, what: `a session waiting on a ${lock} lock` },
  );

const entries = (brandId: string) => entryPositions(db.pool, brandId);

const statusOf = async (deliveryId: string) =>
  (
    await db.pool.query<{ status: string }>(`select status from deliveries where id = $1`, [
      deliveryId,
    ])
  ).rows[0]!.status;

it('a resend during a retention pass waits for it, and queues nothing for the entry it deleted', async () => {
  const { stream, deliveryId } = await streamWithOldSetAside();
  // the pass is held at its delete: the test's transaction holds entry 2's row
  const holder = await db.pool.connect();
  try {
    await holder.query('begin');
    await holder.query(`select 1 from audit_entries where brand_id = $1 and seq = 2 for update`, [
      stream.brand_id,
    ]);
    const pass = sweep();
    await waiting('transactionid');
    // the resend meanwhile: it must not read the entry the pass is deleting as still there
    const resend = resendSetAside(deps(), stream, OWNER).then(
      (r) => ({ ok: true as const, requeued: r.requeued }),
      (err: Error) => ({ ok: false as const, message: err.message }),
    );
    const resent = await Promise.race([
      resend.then(() => 'done' as const),
      waiting('advisory').then(() => 'waiting' as const),
    ]);
    await holder.query('commit');
    expect({ resent, deleted: await pass, resend: await resend }).toEqual({
      resent: 'waiting',
      deleted: 3,
      resend: { ok: false, message: expect.stringMatching(/^Nothing set aside/) as unknown },
    });
  } finally {
    holder.release();
  }
  expect(await entries(stream.brand_id)).toEqual([]);
  expect(await statusOf(deliveryId)).toBe('failed');
});

it('a retention pass during a resend waits for it, and keeps the entry it queued', async () => {
  const { stream, deliveryId } = await streamWithOldSetAside();
  const resending = await db.pool.connect();
  try {
    await resending.query('begin');
    const queued = await requeueSetAside(resending, stream.id, 30 * DAY);
    expect(queued?.requeued).toEqual([2]);
    const pass = sweep();
    const passed = await Promise.race([
      pass.then(() => 'done' as const),
      waiting('advisory').then(() => 'waiting' as const),
    ]);
    await resending.query('commit');
    expect({ passed, deleted: await pass }).toEqual({ passed: 'waiting', deleted: 2 });
  } finally {
    resending.release();
  }
  expect(await entries(stream.brand_id)).toEqual([2]);
  expect(await statusOf(deliveryId)).toBe('pending');
});
