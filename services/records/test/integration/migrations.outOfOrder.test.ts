import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runMigrations } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { createTestDatabase, type TestDatabase } from '@brand/testkit';

// Migrations merged out of order all apply: a branch may take 0007 while 0006 belongs to other work
// in flight, and whichever is merged first, a database that has 0007 must still get 0006 when it
// arrives. The runner applies every file it has not recorded, in name order, not only those above
// the highest applied.

let db: TestDatabase;
let dir: string;
const log = createLogger({ service: 'test', level: 'silent' });
const SCHEMA = 'migration_order_test';

beforeAll(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
});

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('applies a lower-numbered migration that arrives after a higher one was applied', async () => {
  writeFileSync(path.join(dir, '0005_first.sql'), 'create table first_table (x int);');
  writeFileSync(path.join(dir, '0007_later.sql'), 'create table later_table (x int);');
  const migrate = () => runMigrations(db.pool, { schema: SCHEMA, dir, log });
  expect(await migrate()).toEqual(['0005_first', '0007_later']);

  writeFileSync(path.join(dir, '0006_arrived_late.sql'), 'create table late_table (x int);');
  expect(await migrate()).toEqual(['0006_arrived_late']);
  expect(await migrate()).toEqual([]);
  const { rows } = await db.pool.query<{ table_name: string }>(
    'select table_name from information_schema.tables where table_schema = $1 order by 1',
    [SCHEMA],
  );
  expect(rows.map((r) => r.table_name)).toEqual([
    'first_table',
    'late_table',
    'later_table',
    'schema_migrations',
  ]);
});
