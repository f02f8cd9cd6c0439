import type { AuditStreamServiceClient } from '@brand/proto/webhooks/v1/audit';
import { withTransaction } from '@brand/shared/db';
import type { Caller } from '@brand/shared/grpc';
import { makeBrandWithKey, waitFor, type Stack } from '@brand/testkit';
import { insertBatch } from '../../src/streams/batchRepo';
import {
  httpsDestination,
  startAuditStreamStack,
  type AuditStreamStack,
  type HttpsDestination,
} from '../support/auditStreamFixtures';

/**
 * A run of an audit stream whose entries are gone from the trail when its attempt comes (a
 * review of 08e46f07, the second defence beside the retention's: whatever deleted them). The
 * worker read no entries, sent an empty body, and the destination's 2xx recorded the run as
 * delivered: the stream said it had sent positions it never sent. Now nothing is sent: the run
 * fails, saying its entries are no longer kept, and the stream goes on past it (its current
 * run) or stays where it was (a set-aside entry sent again). A real HTTPS JSON-lines
 * destination records every request; the retry schedule is scaled so that retries come in ms.
 */

const RETRY_TIME_SCALE = 0.00001;

let audit: AuditStreamStack;
let stack: Stack;
let streams: Caller<AuditStreamServiceClient>;
let destination: HttpsDestination;
let base = '';
/** The destination answers 503 to any body holding this text (a run it cannot take yet). */
const REFUSED = 'DOOMED'.repeat(4);
/** Every request's body, in arrival order, by path. */
const bodies = new Map<string, string[]>();

beforeAll(async () => {
  audit = await startAuditStreamStack('audit-gone', {
    RETRY_TIME_SCALE: String(RETRY_TIME_SCALE),
  });
  ({ stack, streams } = audit);
  destination = await httpsDestination(audit.ca.tls, (path, raw) => {
    const body = raw.toString('utf8');
    const seen = bodies.get(path) ?? [];
    seen.push(body);
    bodies.set(path, seen);
    return body.includes(REFUSED) ? { status: 503, text: 'not now' } : undefined;
  });
  base = destination.base;
}, 120_000);

afterAll(async () => {
  await destination?.close();
  await audit?.close();
});

/** Positions in the bodies a path took (answered 2xx), in arrival order. */
const positions = (path: string): number[] =>
  (bodies.get(path) ?? [])
    .filter((b) => !b.includes(REFUSED))
    .flatMap((b) =>
      b
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { position: number }).position),
    );

/** A brand with an HTTPS stream to `/<path>`, and a way to make its entries. */
async function connect(path: string) {
  const brand = await makeBrandWithKey(stack.admin);
  const owner = brand.owner.email;
  const added = await audit.addHttpsStream(brand, path, `${base}/${path}`);
  const key = (name?: string) =>
    stack.admin.createKey({ brandId: brand.brand.id, actorEmail: owner, name });
  return { brandId: brand.brand.id, id: added.stream!.id, key };
}

/** A delivery of the stream as the table keeps it, with the positions it carries. */
interface Run {
  id: string;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  from: number;
  through: number;
}
const runs = async (streamId: string): Promise<Run[]> =>
  (
    await stack.db.pool.query<Run>(
      `select d.id, d.status, d.attempts, d.last_status, d.last_error,
         (e.object_json::jsonb ->> 'from')::int as "from",
         (e.object_json::jsonb ->> 'through')::int as through
       from webhooks.deliveries d
       join webhooks.events e on e.id = d.event_id and e.created_at = d.event_at
       where d.receiver_id = $1 and not d.test order by d.created_at`,
      [streamId],
    )
  ).rows;

const stream = async (id: string) =>
  (await streams('getAuditStream', { stream_id: id, deliveries: 0 })).stream!;

it("sends no empty run for its current run's entries gone: the run fails, saying so, and the stream goes on", async () => {
  const s = await connect('current');
  await s.key(REFUSED);
  // the run holding the refused entry, retried on the schedule
  const doomed = await waitFor(
    async () => (await runs(s.id)).find((r) => r.last_status === 503 && r.status === 'pending'),
    { timeoutMs: 30_000, intervalMs: 50, what: 'the run refused 503' },
  );
  // its entries deleted before its next attempt
  await stack.db.pool.query(
    `delete from webhooks.audit_entries where brand_id = $1 and seq between $2 and $3`,
    [s.brandId, doomed.from, doomed.through],
  );
  const attemptsBefore = doomed.attempts;
  // the stream goes on: an entry after it is delivered
  await s.key('after');
  const { head } = await waitFor(
    async () => {
      const got = await stream(s.id);
      return got.head > doomed.through && got.delivered_through === got.head ? got : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: 'the stream past the run' },
  );
  const after = (await runs(s.id)).find((r) => r.id === doomed.id)!;
  expect({
    emptyBodies: (bodies.get('/current') ?? []).filter((b) => b === '').length,
    run: after,
    sentAfter: positions('/current').filter((p) => p > doomed.through),
  }).toEqual({
    emptyBodies: 0,
    run: {
      ...doomed,
      status: 'failed',
      // nothing was sent once its entries were gone; the last attempt was one before
      attempts: expect.any(Number) as unknown,
      last_status: 503,
      last_error:
        doomed.from === doomed.through
          ? `Entry ${doomed.from} is no longer kept in the audit log (deleted before it was sent); nothing was sent, and the stream went on past it.`
          : `Entries ${doomed.from}-${doomed.through} are no longer kept in the audit log (deleted before they were sent); nothing was sent, and the stream went on past them.`,
    },
    sentAfter: expect.arrayContaining([head]) as unknown,
  });
  expect(after.attempts).toBeGreaterThanOrEqual(attemptsBefore);
  expect(positions('/current').some((p) => p >= doomed.from && p <= doomed.through)).toBe(false);
});

it('sends no empty run for a set-aside entry sent again whose entry is gone: the run fails, saying so, the stream stays', async () => {
  const s = await connect('resent');
  await s.key();
  const sent = await waitFor(
    async () => {
      const got = await stream(s.id);
      return got.delivered_through > 0 && got.delivered_through === got.head ? got : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: 'the stream sent its entries' },
  );
  const position = sent.delivered_through;
  // as a resend racing a retention pass left it (closed by the trail lock; this is the second
  // defence): a pending run of one position below where the stream is, its entry deleted
  await stack.db.pool.query(`delete from webhooks.audit_entries where brand_id = $1 and seq = $2`, [
    s.brandId,
    position,
  ]);
  const queued = await withTransaction(stack.db.pool, (c) =>
    insertBatch(
      c,
      { id: s.id, brand_id: s.brandId },
      { range: { from: position, through: position } },
    ),
  );
  const before = (bodies.get('/resent') ?? []).length;
  const run = await waitFor(
    async () => (await runs(s.id)).find((r) => r.id === queued.id && r.status !== 'pending'),
    { timeoutMs: 30_000, intervalMs: 100, what: 'the resent run done' },
  );
  // the stream's own later runs go on meanwhile: only an empty body or one of the position counts
  const carrying = (bodies.get('/resent') ?? [])
    .slice(before)
    .filter((b) => b === '' || b.includes(`{"position":${position},`));
  expect({ run, carrying }).toEqual({
    run: {
      id: queued.id,
      status: 'failed',
      attempts: 0,
      last_status: null,
      last_error: `Entry ${position} is no longer kept in the audit log (deleted before it was sent); nothing was sent.`,
      from: position,
      through: position,
    },
    carrying: [],
  });
  const now = await stream(s.id);
  expect({ failure_count: now.failure_count, set_aside: now.set_aside }).toEqual({
    failure_count: 0,
    set_aside: 0,
  });
});
