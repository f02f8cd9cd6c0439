import { randomBytes } from 'node:crypto';
import { withTransaction } from '@brand/shared/db';
import { SecretBox } from '@brand/shared/secrets';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { insertBatch } from '../../src/streams/batchRepo';
import { resendSetAside } from '../../src/streams/resendSetAside';
import { addStream, listStreams, type StreamDeps } from '../../src/streams/streamService';

// A stream's set-aside entries as its row counts them (set_aside: the panel and its "Send them
// again…", brandctl's hint) against what ResendSetAside queues. A review of c980ad73
// (2026-12-01): the resend takes only deliveries within DELIVERY_HISTORY_RETENTION_MS (a week
// past it is dropped whole), the count took every one still stored, so for up to a week an
// entry was offered, and the resend refused it as "queued or delivered", which it was not.

const OWNER = { memberId: 'mem_owner', email: 'owner@example.com' };
const DAY = 86_400_000;
let db: TestDatabase;

const deps = (historyRetentionMs: number): StreamDeps => ({
  pool: db.pool,
  box: new SecretBox(randomBytes(32).toString('base64')),
  resolve: () => Promise.resolve(['93.184.216.34']),
  allowLoopback: false,
  maxPerBrand: 3,
  historyRetentionMs,
});

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

/** A Datadog stream with one entry (position 2) set aside, its delivery `ageMs` old. */
async function streamWithOneSetAside(ageMs: number) {
  const brandId = `br_${randomBytes(6).toString('hex')}`;
  const { stream } = await addStream(
    deps(30 * DAY),
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
  for (const seq of [1, 2, 3])
    await db.pool.query(
      `insert into audit_entries (brand_id, seq, id, kind, created_at, entry_json)
       values ($1, $2, $3, 'activity', now(), '{}')`,
      [brandId, seq, `aud_${randomBytes(8).toString('hex')}`],
    );
  // as setAsideRun leaves it: failed, one position, not the stream's current run
  const batch = await withTransaction(db.pool, (c) =>
    insertBatch(c, stream, { range: { from: 2, through: 2 } }),
  );
  await db.pool.query(
    `update deliveries set status = 'failed', attempts = 10, completed_at = now() where id = $1`,
    [batch.id],
  );
  await db.pool.query(`update receivers set stream_delivered_through = 3 where id = $1`, [
    stream.id,
  ]);
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
