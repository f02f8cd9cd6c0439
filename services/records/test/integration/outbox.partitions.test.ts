import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureTimePartitions, listTimePartitions, runMigrations } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { MIGRATIONS_DIR } from '@brand/records/migrations';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';
import { keepOutboxPartitions } from '../../src/outbox/outboxPartitions';

// The outbox is partitioned by day; published events go a whole day at a time after
// OUTBOX_RETENTION_MS, a day still holding an unpublished event is kept, and the migration moved
// every existing row into its day.

const DAY = 24 * 3600_000;
const log = createLogger({ service: 'test', level: 'silent' });
const OUTBOX = { schema: 'records', table: 'outbox' };
const dayName = (at: Date) => `outbox_p${at.toISOString().slice(0, 10).replaceAll('-', '')}`;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into records.brands (id, name, tier, verified) values ('br_outboxdays', 'Outbox Days', 'plus', true)`,
  );
});
afterAll(() => db?.close());

const insertEvent = (id: string, at: Date, published: boolean, schema = 'records') =>
  db.pool.query(
    `insert into ${schema}.outbox (id, brand_id, type, payload, created_at, published_at)
     values ($1, 'br_outboxdays', 'payout.paid', '{}', $2, $3)`,
    [id, at, published ? at : null],
  );
const ids = async (where = 'true') =>
  (
    await db.pool.query<{ id: string }>(`select id from records.outbox where ${where} order by id`)
  ).rows.map((r) => r.id);

it('keeps day partitions a week ahead and drops published days past the retention', async () => {
  const now = new Date();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  // the days of ten and nine days ago get partitions, as a keeper running then would have made
  await ensureTimePartitions(db.pool, OUTBOX, { now: ago(10), daysAhead: 1 });
  await insertEvent('evt_tendays', ago(10), true);
  await insertEvent('evt_ninedays_waiting', ago(9), false);
  await insertEvent('evt_ninedays_sent', ago(9), true);
  // no partition for 30 days ago: the default partition holds it
  await insertEvent('evt_default_old', ago(30), true);
  await insertEvent('evt_today', now, true);

  const done = await keepOutboxPartitions(db.pool, { retentionMs: 7 * DAY }, now);
  expect(done.dropped).toContain(dayName(ago(10)));
  expect(done.keptUnpublished).toEqual([dayName(ago(9))]);
  expect(done.defaultRows).toBe(1);
  // nothing unpublished went; the day that holds one is whole
  expect(await ids()).toEqual(['evt_ninedays_sent', 'evt_ninedays_waiting', 'evt_today']);
  const names = (await listTimePartitions(db.pool, OUTBOX)).map((p) => p.name);
  for (let d = 0; d <= 7; d++) expect(names).toContain(dayName(new Date(now.getTime() + d * DAY)));
  expect(names).not.toContain(dayName(ago(10)));

  // once the relay has published it, its day goes too
  await db.pool.query(
    `update records.outbox set published_at = now() where id = 'evt_ninedays_waiting'`,
  );
  const again = await keepOutboxPartitions(db.pool, { retentionMs: 7 * DAY }, now);
  expect(again.dropped).toEqual([dayName(ago(9))]);
  expect(await ids()).toEqual(['evt_today']);
  // a second pass finds nothing to do
  expect(await keepOutboxPartitions(db.pool, { retentionMs: 7 * DAY }, now)).toEqual({
    created: [],
    dropped: [],
    keptUnpublished: [],
    defaultRows: 0,
    analyzed: [],
  });
});

it('migrates an existing outbox into day partitions, keeping every row and the order', async () => {
  const schema = 'records_before_days';
  const dir = mkdtempSync(path.join(tmpdir(), 'records-migrations-'));
  try {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    const byDay = files.filter((f) => f >= '0013_outbox_by_day');
    for (const f of files.filter((f) => !byDay.includes(f)))
      copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });
    await db.pool.query(
      `insert into ${schema}.brands (id, name, tier, verified) values ('br_outboxdays', 'Outbox Days', 'plus', true)`,
    );
    const days = [40, 3, 3, 0].map((d) => new Date(Date.now() - d * DAY));
    for (const [i, at] of days.entries()) await insertEvent(`evt_old_${i}`, at, i !== 2, schema);
    const before = await db.pool.query(
      `select id, seq, created_at, published_at from ${schema}.outbox order by seq`,
    );

    for (const f of byDay) copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
    await runMigrations(db.pool, { schema, dir, log });

    const after = await db.pool.query(
      `select id, seq, created_at, published_at from ${schema}.outbox order by seq`,
    );
    expect(after.rows).toEqual(before.rows);
    const partitions = (await listTimePartitions(db.pool, { schema, table: 'outbox' })).map(
      (p) => p.name,
    );
    expect(partitions).toEqual(expect.arrayContaining([...new Set(days.map(dayName))]));
    const { rows: inDefault } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from ${schema}.outbox_default`,
    );
    expect(inDefault[0]!.n).toBe(0);
    // new events continue the order
    await db.pool.query(
      `insert into ${schema}.outbox (id, brand_id, type, payload) values ('evt_new', 'br_outboxdays', 'payout.paid', '{}')`,
    );
    const { rows } = await db.pool.query<{ seq: string }>(
      `select seq from ${schema}.outbox where id = 'evt_new'`,
    );
    const maxBefore = Math.max(...before.rows.map((r: { seq: string }) => Number(r.seq)));
    expect(Number(rows[0]!.seq)).toBeGreaterThan(maxBefore);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
