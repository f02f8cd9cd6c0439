// A migration behind a long transaction must not stop the traffic to its table. PostgreSQL
// queues every later query on a table behind a waiting `alter table`, so a migration stuck
// behind one open transaction (a report, a forgotten psql) held every reader and writer of that
// table for as long as the transaction stayed open. Now it waits at most its lock timeout, gives
// way (nothing half-applied) and comes back; past its whole wait it fails, applying nothing.
// And each pending migration commits on its own: they all ran in one transaction, so an
// `alter table`'s lock was held while every later migration ran (an index build, a backfill),
// and traffic to that table waited for all of them (a platform review, 2026-11-30).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runMigrations } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { createEmptyDatabase } from '@brand/testkit';

const log = createLogger({ service: 'migrate-test', level: 'silent' });
const schema = 'lockprobe';
let db: Awaited<ReturnType<typeof createEmptyDatabase>>;
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  dir = mkdtempSync(path.join(tmpdir(), 'lock-migrations-'));
  writeFileSync(
    path.join(dir, '0001_table.sql'),
    'create table t (id int primary key); insert into t values (1), (2);',
  );
  await runMigrations(pool, { schema, dir, log });
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An open transaction that has read the table: it holds a lock every `alter table` waits on. */
async function openReader(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query('begin');
  await c.query(`select count(*) from ${schema}.t`);
  return c;
}

const columns = async (): Promise<string[]> =>
  (
    await pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_schema = $1 and table_name = 't' order by ordinal_position`,
      [schema],
    )
  ).rows.map((r) => r.column_name);

it('gives way to traffic while a long transaction holds the table, then applies', async () => {
  writeFileSync(path.join(dir, '0002_note.sql'), 'alter table t add column note text;');
  const blocker = await openReader();
  try {
    const migrating = runMigrations(pool, {
      schema,
      dir,
      log,
      lock: { lockTimeoutMs: 400, lockWaitMaxMs: 60_000 },
    });
    // the alter is queued now; a query of the table from elsewhere goes ahead of it within one
    // lock timeout (before, it waited for as long as the blocker stayed open: 8 s here)
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    // a bound, so that a reader held behind the migration fails here instead of hanging
    const reader = new pg.Client({ connectionString: db.url, statement_timeout: 3_000 });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ n: number }>(
        `select count(*)::int as n from ${schema}.t`,
      );
      expect(rows[0]?.n).toBe(2);
    } finally {
      await reader.end();
    }
    expect(Date.now() - started).toBeLessThan(3_000);
    await new Promise((r) => setTimeout(r, 8_000 - (Date.now() - started)));
    expect(await columns()).toEqual(['id']); // still waiting, nothing half-applied
    await blocker.query('commit');
    await expect(migrating).resolves.toEqual(['0002_note']);
    expect(await columns()).toEqual(['id', 'note']);
  } finally {
    await blocker.end();
  }
}, 30_000);

it('stops after its whole wait, applying nothing more, and names the oldest transactions', async () => {
  writeFileSync(path.join(dir, '0003_more.sql'), 'alter table t add column more text;');
  const blocker = await openReader();
  try {
    const failed = runMigrations(pool, {
      schema,
      dir,
      log,
      lock: { lockTimeoutMs: 300, lockWaitMaxMs: 2_500 },
    });
    const stillWaiting = new Promise((_, reject) =>
      setTimeout(() => reject(new Error('still waiting after 10 s')), 10_000).unref(),
    );
    await expect(Promise.race([failed, stillWaiting])).rejects.toThrow(
      /gave way .* for 3 s \(\d+ tries\).*applied before that: none, the next one not/,
    );
    await expect(failed).rejects.toThrow(/"state":"idle in transaction"/);
    expect(await columns()).toEqual(['id', 'note']);
    const { rows } = await pool.query(`select id from ${schema}.schema_migrations order by id`);
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['0001_table', '0002_note']);
  } finally {
    await blocker.end();
  }
  await expect(runMigrations(pool, { schema, dir, log })).resolves.toEqual(['0003_more']);
}, 30_000);

it('commits each migration on its own: a table altered first is served while the next one runs', async () => {
  writeFileSync(path.join(dir, '0004_tag.sql'), 'alter table t add column tag text;');
  // a long second migration (an index build, a backfill) on another table
  writeFileSync(
    path.join(dir, '0005_slow.sql'),
    'create table slow (id int); select pg_sleep(3); insert into slow values (1);',
  );
  const migrating = runMigrations(pool, { schema, dir, log });
  // once 0004 is in, a reader of t is served at once (before: it queued behind 0004's lock
  // until 0005 had run too, 3 s)
  const end = Date.now() + 3_000;
  while (!(await columns()).includes('tag')) {
    if (Date.now() > end) throw new Error('0004 not committed within 3 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const reader = new pg.Client({ connectionString: db.url, statement_timeout: 2_000 });
  await reader.connect();
  try {
    const started = Date.now();
    const { rows } = await reader.query<{ n: number }>(
      `select count(*)::int as n from ${schema}.t`,
    );
    expect(rows[0]?.n).toBe(2);
    expect(Date.now() - started).toBeLessThan(1_000);
  } finally {
    await reader.end();
  }
  await expect(migrating).resolves.toEqual(['0004_tag', '0005_slow']);
}, 30_000);
