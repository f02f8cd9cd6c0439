import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { SERVICES_DIR } from './paths';
import { ident, likePrefix, PG_DUPLICATE_DATABASE, pgCode, withAdminClient } from './pgAdmin';
import { randomHex } from './random';
import { databaseUrl, TEMPLATE_DB_PREFIX } from './testEnv';

/** The services that own a schema: every services/<name> with a migrations folder. */
async function migratedServices(): Promise<string[]> {
  const names = (await readdir(SERVICES_DIR)).sort();
  return names.filter((name) => existsSync(path.join(SERVICES_DIR, name, 'migrations')));
}

/**
 * `brand_tpl_<first 10 hex of sha1 over every service's migration files, names and
 * contents>`: a changed or added migration gives a new template, an unchanged tree reuses
 * the old one.
 */
async function templateDatabaseName(): Promise<string> {
  const hash = createHash('sha1');
  for (const service of await migratedServices()) {
    const dir = path.join(SERVICES_DIR, service, 'migrations');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
    for (const file of files) {
      hash.update(`${service}/${file}\0`);
      hash.update(await readFile(path.join(dir, file)));
      hash.update('\0');
    }
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
      for (const service of await migratedServices()) {
        await runMigrateScript(service, databaseUrl(tmp));
      }
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

/**
 * Runs a service's own migration entry point (dist/migrate.js), exactly as deployments do;
 * `servicesDir` is another build's services folder (an earlier release's), this tree's by default.
 */
export function runMigrateScript(
  service: string,
  url: string,
  servicesDir: string = SERVICES_DIR,
): Promise<void> {
  const script = path.join(servicesDir, service, 'dist', 'migrate.js');
  if (!existsSync(script)) {
    return Promise.reject(new Error(`${script} is missing: build services/${service} first`));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
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
        : reject(new Error(`${service} migrate exited with ${String(code)}:\n${output}`)),
    );
  });
}
