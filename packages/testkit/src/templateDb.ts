import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { MIGRATIONS_DIR, RECORDS_MIGRATE } from './paths';
import { ident, likePrefix, PG_DUPLICATE_DATABASE, pgCode, withAdminClient } from './pgAdmin';
import { randomHex } from './random';
import { databaseUrl, TEMPLATE_DB_PREFIX } from './testEnv';

/**
 * `brand_tpl_<first 10 hex of sha1 over the sorted migration files' names and contents>`:
 * a changed or added migration gives a new template, an unchanged tree reuses the old one.
 */
export async function templateDatabaseName(): Promise<string> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  const hash = createHash('sha1');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(MIGRATIONS_DIR, file)));
    hash.update('\0');
  }
  return `${TEMPLATE_DB_PREFIX}${hash.digest('hex').slice(0, 10)}`;
}

/**
 * Makes sure the migrated template exists and returns its name. It is built under a
 * temporary name and renamed when complete, so a concurrent run never clones a half-migrated
 * database; if another run renamed its copy first, ours is dropped. Connections to the
 * template are then disallowed: CREATE DATABASE ... TEMPLATE fails while anyone is connected.
 */
export async function ensureTemplateDatabase(): Promise<string> {
  const name = await templateDatabaseName();
  if (!(await databaseExists(name))) {
    const tmp = `${name}_tmp_${randomHex(4)}`;
    await withAdminClient((c) => c.query(`create database ${ident(tmp)}`));
    try {
      await runMigrateScript(databaseUrl(tmp));
      await withAdminClient((c) =>
        c.query(`alter database ${ident(tmp)} rename to ${ident(name)}`),
      );
      await withAdminClient((c) =>
        c.query(`alter database ${ident(name)} with allow_connections false`),
      );
    } catch (err) {
      await dropDatabase(tmp, true);
      if (pgCode(err) !== PG_DUPLICATE_DATABASE) throw err;
    }
  }
  await dropStaleTemplates(name);
  return name;
}

async function databaseExists(name: string): Promise<boolean> {
  const r = await withAdminClient((c) =>
    c.query('select 1 from pg_database where datname = $1', [name]),
  );
  return r.rowCount === 1;
}

/**
 * Drops templates of older migration trees that nobody is connected to. Half-built
 * `_tmp_` copies are left alone: one may belong to a run that is migrating it right now.
 */
async function dropStaleTemplates(current: string): Promise<void> {
  const stale = await withAdminClient((c) =>
    c.query<{ datname: string }>(
      `select d.datname from pg_database d
       where d.datname like $1 and d.datname <> $2 and d.datname not like '%\\_tmp\\_%'
         and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`,
      [likePrefix(TEMPLATE_DB_PREFIX), current],
    ),
  );
  for (const { datname } of stale.rows) await dropDatabase(datname, false);
}

/** Drops a database, ignoring failures (it may be gone, or in use by another run). */
export async function dropDatabase(name: string, force: boolean): Promise<void> {
  await withAdminClient((c) =>
    c.query(`drop database if exists ${ident(name)}${force ? ' with (force)' : ''}`),
  ).catch(() => undefined);
}

/** Runs the records service's own migration entry point, exactly as deployments do. */
function runMigrateScript(url: string): Promise<void> {
  if (!existsSync(RECORDS_MIGRATE)) {
    return Promise.reject(new Error(`${RECORDS_MIGRATE} is missing: build services/records first`));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RECORDS_MIGRATE], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`records migrate exited with ${String(code)}:\n${output}`)),
    );
  });
}
