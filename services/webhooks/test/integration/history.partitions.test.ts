import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ensureTimePartitions,
  listTimePartitions,
  runMigrations,
  withTransaction,
} from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { MIGRATIONS_DIR } from '../../src/db/migrations';
import { insertDeliveries, insertEvents } from '../../src/ingest/eventRepo';
import { requeueDelivery } from '../../src/log/deliveryRepo';
import { keepHistoryPartitions } from '../../src/maintenance/historyPartitions';

// Issue 36: the delivery history (events, deliveries, attempts, attempt detail) is partitioned
// by the event's week; retention drops whole weeks (a week still holding a pending delivery
// is kept), attempt detail goes after its own shorter retention, rows in the default
// partitions are swept past the same bounds, and the migration moved every existing row.

const DAY = 24 * 3600_000;
const WEEK = 7 * DAY;
const log = createLogger({ service: 'test', level: 'silent' });
const TABLES = ['events', 'deliveries', 'attempts', 'attempt_details'] as const;
const RETENTION = { historyMs: 30 * DAY, detailMs: 14 * DAY, batchSize: 2 };
/** The name of the week partition holding `at` (weeks start at multiples of 7 days since 1970). */
const weekOf = (table: string, at: Date) =>
  `${table}_p${new Date(Math.floor(at.getTime() / WEEK) * WEEK).toISOString().slice(0, 10).replaceAll('-', '')}`;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into webhooks.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by, created_at)
     values ('rcv_weeks', 'br_weeks', 'https://receiver.example/hook', 'weeks', '{payout.paid}', '\\x00', 'k1', 'test', '2026-01-01')`,
  );
});
afterAll(() => db?.close());

/** An event at `at` with one delivery in `status`, one attempt and its detail. */
async function history(id: string, at: Date, status: 'pending' | 'succeeded', schema = 'webhooks') {
  await withTransaction(db.pool, async (c) => {
    await c.query(
      `insert into ${schema}.events (id, brand_id, type, created_at, object_json)
       values ($1, 'br_weeks', 'payout.paid', $2, '{"id":"po_1"}')`,
      [`evt_${id}`, at],
    );
    await c.query(
      `insert into ${schema}.deliveries (id, event_id, event_at, event_type, receiver_id, brand_id, status, attempts)
       values ($1, $2, $3, 'payout.paid', 'rcv_weeks', 'br_weeks', $4, 1)`,
      [`dlv_${id}`, `evt_${id}`, at, status],
    );
    await c.query(
      `insert into ${schema}.attempts (delivery_id, number, event_at, started_at, duration_ms, status_code)
       values ($1, 1, $2, $2, 5, 500)`,
      [`dlv_${id}`, at],
    );
    await c.query(
      `insert into ${schema}.attempt_details (delivery_id, number, event_at, request_headers, response_headers)
       values ($1, 1, $2, '[]', '[]')`,
      [`dlv_${id}`, at],
    );
  });
}

const ids = async (table: (typeof TABLES)[number]) => {
  const column = table === 'events' ? 'id' : table === 'deliveries' ? 'id' : 'delivery_id';
  const res = await db.pool.query<{ id: string }>(
    `select ${column} as id from webhooks.${table} order by 1`,
  );
  return res.rows.map((r) => r.id.replace(/^(evt|dlv)_/, ''));
};

it('keeps week partitions ahead and drops weeks past the retention, a pending one kept', async () => {
  const now = new Date();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  // the weeks of 52, 45 and 22 days ago get partitions, as a keeper running then made them
  for (const table of TABLES)
    for (const days of [52, 45, 22])
      await ensureTimePartitions(
        db.pool,
        { schema: 'webhooks', table, days: 7 },
        {
          now: ago(days),
          daysAhead: 0,
        },
      );
  await history('old', ago(52), 'succeeded');
  await history('oldpending', ago(45), 'pending');
  await history('detailold', ago(22), 'succeeded');
  // no partition for 60 days ago: the default partitions hold these
  await history('defaultold', ago(60), 'succeeded');
  await history('defaultpending', ago(61), 'pending');
  await history('fresh', now, 'succeeded');

  const done = await keepHistoryPartitions(db.pool, RETENTION, now);
  for (const table of TABLES) expect(done.dropped).toContain(weekOf(table, ago(52)));
  expect(done.dropped).toContain(weekOf('attempt_details', ago(22)));
  expect(done.keptPending).toEqual([weekOf('deliveries', ago(45)).slice(-8)]);
  // the old event's event, delivery, attempt and detail, and the pending one's detail, in
  // batches of two
  expect(done.defaultRows).toBe(5);

  const kept = ['defaultpending', 'detailold', 'fresh', 'oldpending'];
  expect(await ids('events')).toEqual(kept);
  expect(await ids('deliveries')).toEqual(kept);
  expect(await ids('attempts')).toEqual(kept);
  // detail goes after 14 days, a pending delivery's too (the attempts stay)
  expect(await ids('attempt_details')).toEqual(['fresh']);

  // a week is made ahead for every table
  for (const table of TABLES) {
    const names = (await listTimePartitions(db.pool, { schema: 'webhooks', table, days: 7 })).map(
      (p) => p.name,
    );
    expect(names).toContain(weekOf(table, new Date(now.getTime() + 7 * DAY)));
    expect(names).not.toContain(weekOf(table, ago(52)));
  }

  // once its delivery is finished, the pending week goes too
  await db.pool.query(
    `update webhooks.deliveries set status = 'failed' where id = 'dlv_oldpending'`,
  );
  const again = await keepHistoryPartitions(db.pool, RETENTION, now);
  expect(again.dropped.sort()).toEqual(
    ['attempts', 'deliveries', 'events'].map((t) => weekOf(t, ago(45))).sort(),
  );
  expect(await ids('events')).toEqual(['defaultpending', 'detailold', 'fresh']);
  // and a pass with nothing to do does nothing
  expect(await keepHistoryPartitions(db.pool, RETENTION, now)).toEqual({
    created: [],
    dropped: [],
    keptPending: [],
    defaultRows: 0,
    analyzed: [],
  });
});

// A review (2026-11-29): the keeper looks for pending deliveries in a week, then drops it; a
// resend in between was told "queued" and vanished with the week. A delivery of an event past
// the retention is refused instead, by the database's clock, which the keeper's drop uses too.
it('refuses to resend a delivery of an event past the history retention', async () => {
  const now = new Date();
  await history('resendold', new Date(now.getTime() - 40 * DAY), 'succeeded');
  await history('resendfresh', new Date(now.getTime() - DAY), 'succeeded');
  const requeue = (id: string) =>
    withTransaction(db.pool, (c) => requeueDelivery(c, id, RETENTION.historyMs));
  expect(await requeue('dlv_resendold')).toBe('past_retention');
  expect(await requeue('dlv_resendfresh')).toBe('queued');
  expect(await requeue('dlv_resendfresh')).toBe('pending');
  const { rows } = await db.pool.query<{ id: string; status: string }>(
    `select id, status from webhooks.deliveries where id like 'dlv_resend%' order by id`,
  );
  expect(rows).toEqual([
    { id: 'dlv_resendfresh', status: 'pending' },
    { id: 'dlv_resendold', status: 'succeeded' },
  ]);
  await db.pool.query(`delete from webhooks.attempt_details where delivery_id like 'dlv_resend%'`);
  await db.pool.query(`delete from webhooks.attempts where delivery_id like 'dlv_resend%'`);
  await db.pool.query(`delete from webhooks.deliveries where id like 'dlv_resend%'`);
  await db.pool.query(`delete from webhooks.events where id like 'evt_resend%'`);
});

it('gives a week that grew fresh planner statistics, as autovacuum would (the test machines have none)', async () => {
  const now = new Date();
  await keepHistoryPartitions(db.pool, RETENTION, now);
  const week = weekOf('events', now);
  await db.pool.query(
    `insert into webhooks.events (id, brand_id, type, created_at, object_json)
     select 'evt_stats' || g, 'br_weeks', 'payout.paid', $1::timestamptz, '{}'
     from generate_series(1, 300) g`,
    [now],
  );
  // the counts of changed rows reach the statistics a moment after the commit
  let analyzed: string[] = [];
  for (let i = 0; i < 40 && !analyzed.includes(week); i++) {
    analyzed = (await keepHistoryPartitions(db.pool, RETENTION, now)).analyzed;
    if (!analyzed.includes(week)) await new Promise((r) => setTimeout(r, 250));
  }
  expect(analyzed).toContain(week);
  const { rows } = await db.pool.query<{ reltuples: number }>(
    `select reltuples from pg_class where relname = $1`,
    [week],
  );
  expect(rows[0]!.reltuples).toBeGreaterThanOrEqual(300);
  // analyzed, it is not analyzed again until it changes as much again
  expect((await keepHistoryPartitions(db.pool, RETENTION, now)).analyzed).not.toContain(week);
});

it('stores an event and its deliveries once however often Kafka hands it over', async () => {
  const event = {
    id: 'evt_twice',
    brandId: 'br_weeks',
    type: 'payout.paid' as const,
    createdAt: '2026-11-25T09:30:00.123456Z',
    objectJson: '{"id":"po_twice"}',
    test: false,
    producer: 'test',
  };
  const stored = { ...event, traceparent: null, tracestate: null };
  const deliveryOf = (id: string, receiverId: string) => ({
    id,
    eventId: event.id,
    eventAt: event.createdAt,
    eventType: event.type,
    receiverId,
    brandId: event.brandId,
  });
  let n = 0;
  for (let i = 0; i < 2; i++) {
    await withTransaction(db.pool, async (c) => {
      // twice in one call, as in a chunk that holds a redelivered message: stored once
      const inserted = await insertEvents(c, [stored, stored]);
      for (const receiverId of inserted.receivers.get(event.id) ?? [])
        n += await insertDeliveries(c, [deliveryOf(`dlv_twice${i}`, receiverId)]);
      // even a second insert of the deliveries themselves adds nothing: the key is exact
      n += await insertDeliveries(c, [deliveryOf(`dlv_again${i}`, 'rcv_weeks')]);
    });
  }
  expect(n).toBe(1);
  const { rows } = await db.pool.query(
    `select d.id, d.event_type, d.event_at = e.created_at as same_week_key
     from webhooks.deliveries d join webhooks.events e on e.id = d.event_id where e.id = 'evt_twice'`,
  );
  expect(rows).toEqual([{ id: 'dlv_twice0', event_type: 'payout.paid', same_week_key: true }]);
});

it('migrates existing history into week partitions, keeping every row', async () => {
  const schema = 'webhooks_before_weeks';
  const dir = mkdtempSync(path.join(tmpdir(), 'webhooks-migrations-'));
  try {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    const byWeek = files.filter((f) => f >= '0012_history_by_week');
    for (const f of files.filter((f) => !byWeek.includes(f)))
      copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });
    await db.pool.query(
      `insert into ${schema}.receivers (id, brand_id, url, label, events, secret_ciphertext, secret_key_id, created_by)
       values ('rcv_weeks', 'br_weeks', 'https://receiver.example/hook', 'weeks', '{payout.paid}', '\\x00', 'k1', 'test')`,
    );
    const days = [50, 9, 3, 0];
    for (const [i, d] of days.entries()) {
      const at = new Date(Date.now() - d * DAY);
      await db.pool.query(
        `insert into ${schema}.events (id, brand_id, type, created_at, object_json) values ($1, 'br_weeks', 'payout.paid', $2, '{}')`,
        [`evt_m${i}`, at],
      );
      await db.pool.query(
        `insert into ${schema}.deliveries (id, event_id, receiver_id, brand_id, status, attempts) values ($1, $2, 'rcv_weeks', 'br_weeks', 'succeeded', 2)`,
        [`dlv_m${i}`, `evt_m${i}`],
      );
      for (const number of [1, 2]) {
        await db.pool.query(
          `insert into ${schema}.attempts (delivery_id, number, started_at, duration_ms, status_code) values ($1, $2, now(), 5, 200)`,
          [`dlv_m${i}`, number],
        );
        await db.pool.query(
          `insert into ${schema}.attempt_details (delivery_id, number, request_headers, response_headers) values ($1, $2, '[]', '[]')`,
          [`dlv_m${i}`, number],
        );
      }
    }
    const snapshot = async () => ({
      events: (await db.pool.query(`select id, created_at from ${schema}.events order by id`)).rows,
      deliveries: (
        await db.pool.query(
          `select id, event_id, status, attempts, created_at from ${schema}.deliveries order by id`,
        )
      ).rows,
      attempts: (
        await db.pool.query(
          `select delivery_id, number, status_code from ${schema}.attempts order by 1, 2`,
        )
      ).rows,
      details: (
        await db.pool.query(
          `select delivery_id, number, recorded_at from ${schema}.attempt_details order by 1, 2`,
        )
      ).rows,
    });
    const before = await snapshot();

    for (const f of byWeek) copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });

    expect(await snapshot()).toEqual(before);
    // every row carries its event's time and type, and sits in its event's week
    const { rows: keyed } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from ${schema}.deliveries d join ${schema}.events e
         on e.id = d.event_id and e.created_at = d.event_at and e.type = d.event_type`,
    );
    expect(keyed[0]!.n).toBe(days.length);
    for (const table of TABLES) {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from ${schema}.${table}_default`,
      );
      expect(rows[0]!.n).toBe(0);
    }
    const weeks = (await listTimePartitions(db.pool, { schema, table: 'events', days: 7 })).map(
      (p) => p.name,
    );
    expect(weeks).toContain(weekOf('events', new Date(Date.now() - 50 * DAY)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The events feed's cursors into a week expire before the week is dropped, so a
// follower whose position is older than the kept history gets 410 cursor_expired, never a gap.
it('records the greatest feed position a drop or a default sweep removes, per brand', async () => {
  const now = new Date();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  for (const table of TABLES)
    await ensureTimePartitions(
      db.pool,
      { schema: 'webhooks', table, days: 7 },
      { now: ago(80), daysAhead: 0 },
    );
  const event = (id: string, brand: string, at: Date, seq: number) =>
    db.pool.query(
      `insert into webhooks.events (id, brand_id, type, created_at, object_json, feed_seq)
       values ($1, $2, 'payout.paid', $3, '{"id":"po_1"}', $4)`,
      [id, brand, at, seq],
    );
  await db.pool.query(
    `insert into webhooks.event_feed_heads (brand_id, last_seq) values ('br_feedA', 9), ('br_feedB', 9)`,
  );
  await event('evt_fa1', 'br_feedA', ago(80), 1);
  await event('evt_fa2', 'br_feedA', ago(80), 4);
  await event('evt_fb1', 'br_feedB', ago(80), 2);
  // a week with no partition: the default partition holds it, and the sweep deletes it
  await event('evt_fb2', 'br_feedB', ago(90), 7);
  // kept: a late event with a smaller position than the dropped ones
  await event('evt_fa3', 'br_feedA', now, 3);

  await keepHistoryPartitions(db.pool, RETENTION, now);
  const heads = await db.pool.query<{ brand_id: string; expired_through: string }>(
    `select brand_id, expired_through::text from webhooks.event_feed_heads
     where brand_id like 'br_feed%' order by 1`,
  );
  expect(heads.rows).toEqual([
    { brand_id: 'br_feedA', expired_through: '4' },
    { brand_id: 'br_feedB', expired_through: '7' },
  ]);
  const left = await db.pool.query(
    `select id from webhooks.events where id like 'evt_f_%' and brand_id like 'br_feed%'`,
  );
  expect(left.rows).toEqual([{ id: 'evt_fa3' }]);
});
