// A delivery's page, the delivery log and the Events page read deliveries, their attempts and
// their detail as of one moment. They were separate reads (the delivery rows, then their
// attempts and detail, each on a connection of its own), so a worker's attempt committed in
// between showed through: a probe of the console saw "Queued, not delivered yet · Attempts: 0
// of 10" above "Attempt 1: HTTP 200".
// The worker writes an attempt, its detail and the delivery's state in one statement; here its
// very statement (recordSucceededAttempts) commits right after the reader's first read, every
// time, so the race that showed once in four tries is met deterministically.
import type pg from 'pg';
import type { TestDatabase } from '@brand/testkit';
import { cursorKeys } from '../../src/cursorKeys';
import { listEventOutcomes } from '../../src/feed/eventOutcomes';
import { getDelivery, listDeliveries, type DeliveryView } from '../../src/log/deliveryService';
import { recordSucceededAttempts } from '../../src/outcome/attemptRepo';
import { historyDatabase, successOf, webhooksPool } from './statementFixtures';

let db: TestDatabase;
let reader: pg.Pool;
let writer: pg.Pool;
/** Run once, after the next read whose SQL matches `at` has returned and before the reader goes on. */
let between: { at: RegExp; run: () => Promise<void> } | undefined;

type Query = (...args: unknown[]) => unknown;

beforeAll(async () => {
  db = await historyDatabase();
  await db.pool.query(
    `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     values ('rcv_snap', 'br_snap', 'https://receiver.example/hook', 'snapshot', '{payout.paid}', '\\x00', 'k1', 'test', now() - interval '1 day')`,
  );
  writer = webhooksPool(db);
  reader = webhooksPool(db);
  // every connection of the reader: the step `between` is taken after its read, whatever the
  // service reads through (pool.query or a client of its own)
  reader.on('connect', (client: pg.PoolClient) => {
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
      const step = between;
      if (!step || typeof sql !== 'string' || !step.at.test(sql)) return query(...args);
      between = undefined;
      const done = typeof args.at(-1) === 'function' ? (args.pop() as Query) : undefined;
      const read = (query(...args) as Promise<unknown>).then(async (res) => {
        await step.run();
        return res;
      });
      if (!done) return read;
      read.then(
        (res) => done(null, res),
        (err: unknown) => done(err),
      );
      return undefined;
    };
  });
});
afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await db?.close();
});

/** A queued delivery of a new event to rcv_snap, not attempted yet; `feedSeq`: its feed position. */
async function queued(
  name: string,
  feedSeq: number | null = null,
): Promise<{ id: string; event_created_at: string }> {
  const { rows } = await db.pool.query<{ event_created_at: string }>(
    `with e as (
       insert into webhooks.events (id, brand_id, type, created_at, object_json, feed_seq)
       values ('evt_' || $1, 'br_snap', 'payout.paid', now(), '{"id":"po_snap"}', $2)
       returning id, created_at, type
     )
     insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id)
     select 'dlv_' || $1, e.id, e.created_at, e.type, 'rcv_snap', 'br_snap' from e
     returning to_char(event_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as event_created_at`,
    [name, feedSeq],
  );
  return { id: `dlv_${name}`, event_created_at: rows[0]!.event_created_at };
}

/** The worker's first attempt of `d`, answered 200, committed as the worker commits it. */
const workerSucceeds = (d: { id: string; event_created_at: string }) => () =>
  recordSucceededAttempts(writer, [
    successOf({ ...d, receiver_id: 'rcv_snap', attempts: 0, test: false }),
  ]);

/** What a page shows of a delivery: its state and the attempts it lists, with their detail. */
const shown = (d: DeliveryView) => ({
  status: d.status,
  attempts: d.attempts,
  listed: d.attempt_log.map((a) => a.number),
  detailed: d.details?.map((x) => x.number),
});

const BEFORE = { status: 'pending', attempts: 0, listed: [] };
const AFTER = { status: 'succeeded', attempts: 1, listed: [1] };

it('GetDelivery never shows a queued delivery beside an attempt the worker made meanwhile', async () => {
  const d = await queued('snapone');
  between = { at: /from deliveries d cross join lateral/, run: workerSucceeds(d) };
  const read = shown(await getDelivery(reader, d.id));
  expect(between).toBeUndefined(); // the worker did commit during the read
  expect(read).toEqual({ ...BEFORE, detailed: [] });
  // read again: the attempt, its detail and the state, all together
  expect(shown(await getDelivery(reader, d.id))).toEqual({ ...AFTER, detailed: [1] });
});

it('the delivery log never shows a queued delivery beside an attempt the worker made meanwhile', async () => {
  const d = await queued('snaptwo');
  between = { at: /order by d\.created_at desc, d\.id desc limit/, run: workerSucceeds(d) };
  const page = await listDeliveries({ pool: reader }, { receiverId: 'rcv_snap', limit: 1 });
  expect(between).toBeUndefined();
  expect(page.deliveries.map(shown)).toEqual([{ ...BEFORE, detailed: undefined }]);
  const again = await listDeliveries({ pool: reader }, { receiverId: 'rcv_snap', limit: 1 });
  expect(again.deliveries.map(shown)).toEqual([{ ...AFTER, detailed: undefined }]);
});

it("the Events page never shows an event's delivery queued beside an attempt the worker made meanwhile", async () => {
  const d = await queued('snapfeed', 1);
  await db.pool.query(
    `insert into webhooks.event_feed_heads (brand_id, last_seq) values ('br_snap', 1)
     on conflict (brand_id) do update set last_seq = 1`,
  );
  const deps = {
    pool: reader,
    cursorKeys: cursorKeys('events-feed-cursor', Buffer.alloc(32, 7).toString('base64')),
  };
  const query = {
    brandId: 'br_snap',
    limit: 1,
    cursor: '',
    type: undefined,
    since: '',
    until: '',
    eventId: 'evt_snapfeed',
    recordId: '',
  };
  between = { at: /join deliveries d on d\.event_id = k\.event_id/, run: workerSucceeds(d) };
  const page = await listEventOutcomes(deps, query);
  expect(between).toBeUndefined();
  expect(page.events.flatMap((e) => e.deliveries).map(shown)).toEqual([
    { ...BEFORE, detailed: undefined },
  ]);
  const again = await listEventOutcomes(deps, query);
  expect(again.events.flatMap((e) => e.deliveries).map(shown)).toEqual([
    { ...AFTER, detailed: undefined },
  ]);
});
