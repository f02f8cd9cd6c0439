// A migration behind a long transaction must not stop the traffic to its table. PostgreSQL
// queues every later query on a table behind a waiting `alter table`, so a migration stuck
// behind one open transaction (a report, a forgotten psql) held every reader and writer of that
// table for as long as the transaction stayed open. Now it waits at most its lock timeout, gives
// way (nothing half-applied) and comes back; past its whole wait it fails, applying nothing.
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

it('stops after its whole wait, applying nothing, and names the oldest transactions', async () => {
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
      /gave way .* for 3 s \(\d+ tries\).*nothing was applied/,
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
