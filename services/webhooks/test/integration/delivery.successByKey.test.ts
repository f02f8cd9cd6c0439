import type pg from 'pg';
import type { TestDatabase } from '@brand/testkit';
import { recordSucceededAttempts } from '../../src/outcome/attemptRepo';
import { historyDatabase, successOf, webhooksPool } from './statementFixtures';

// A batch of successes finds the deliveries it names by key, however small the week's
// partition still is. The statement joined its JSON input, whose length PostgreSQL cannot
// see (it assumes 100 rows), to the partition, so until the partition held about 100,000
// deliveries the planner preferred reading all of it: every batch scanned the week's
// deliveries (2.0 of the statement's 2.7 ms at 8,000 rows; BENCHMARKS.md). It now also
// names them as an array (`id = any(...)`), which the primary key answers.

const EVENTS = 3_000;

let db: TestDatabase;
let pool: pg.Pool;
/** The week partition the deliveries below are in (the current week's). */
let partition: string;

beforeAll(async () => {
  db = await historyDatabase();
  await db.pool.query(
    `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     values ('rcv_bykey', 'br_bykey', 'https://receiver.example/hook', 'by key', '{payout.paid}', '\\x00', 'k1', 'test', now() - interval '1 day')`,
  );
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json)
     select 'evt_bykey' || g, 'br_bykey', 'payout.paid', now() - g * interval '10 milliseconds', '{"id":"po_bykey"}'
     from generate_series(1, $1::int) as g`,
    [EVENTS],
  );
  await db.pool.query(
    `insert into webhooks.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, lease_until)
     select 'dlv_' || e.id, e.id, e.created_at, e.type, 'rcv_bykey', 'br_bykey', now() + interval '1 minute'
     from webhooks.events e`,
  );
  // the statistics the history keeper keeps (it analyzes a partition whose rows changed by
  // more than 50 + 10 %)
  await db.pool.query('analyze webhooks.deliveries');
  const { rows } = await db.pool.query<{ name: string }>(
    `select tableoid::regclass::text as name from webhooks.deliveries limit 1`,
  );
  partition = rows[0]!.name;
  // one connection, as each of the service's connections prepares a statement once and
  // PostgreSQL moves to its generic plan after five runs
  pool = webhooksPool(db, 1);
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
});

/** Sequential scans of `table` so far, this connection's included. */
async function seqScans(table: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('select pg_stat_force_next_flush()');
    // a new transaction: the statistics snapshot of the last one is not reused
    const { rows } = await client.query<{ n: string }>(
      `select seq_scan as n from pg_stat_user_tables where relid = $1::regclass`,
      [table],
    );
    return Number(rows[0]!.n);
  } finally {
    client.release();
  }
}

/** A first attempt of `deliveryId` answered 2xx. */
const success = (id: string, eventAt: string) =>
  successOf({ id, event_created_at: eventAt, receiver_id: 'rcv_bykey', attempts: 0, test: false });

it('records batches of successes without reading the week of deliveries', async () => {
  const { rows: at } = await db.pool.query<{ id: string; event_at: string }>(
    `select id, to_char(event_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as event_at
     from webhooks.deliveries where id like 'dlv_evt_bykey%'`,
  );
  const eventAt = new Map(at.map((r) => [r.id, r.event_at]));
  const before = await seqScans(partition);
  for (let batch = 0; batch < 8; batch++) {
    const ids = [1, 2, 3].map((i) => `dlv_evt_bykey${batch * 3 + i}`);
    await recordSucceededAttempts(
      pool,
      ids.map((id) => success(id, eventAt.get(id)!)),
    );
  }
  expect(await seqScans(partition)).toBe(before);
  const { rows } = await db.pool.query<{ n: string }>(
    `select count(*) as n from webhooks.deliveries where status = 'succeeded'`,
  );
  expect(Number(rows[0]!.n)).toBe(24);
});
