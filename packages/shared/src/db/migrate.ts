import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger';
import { withTransaction, type Pool } from './pool';

/**
 * Applies the pending forward-only migrations `NNNN_description.sql` from `dir` to
 * `schema`, all in one transaction with their rows in `<schema>.schema_migrations`
 * (PostgreSQL DDL is transactional, so a failed migration leaves nothing half-applied).
 * A transaction-scoped advisory lock serialises concurrent runners (several replicas, or
 * a Job racing a dev script): the second waits, then finds the work done.
 * Returns the ids applied by this call.
 */
export async function runMigrations(
  pool: Pool,
  opts: { schema: string; dir: string; log: Logger },
): Promise<string[]> {
  const files = (await readdir(opts.dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await withTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`migrate:${opts.schema}`]);
    await client.query(`create schema if not exists ${opts.schema}`);
    await client.query(
      `create table if not exists ${opts.schema}.schema_migrations (
         id text primary key,
         applied_at timestamptz not null default now()
       )`,
    );
    const done = await client.query<{ id: string }>(
      `select id from ${opts.schema}.schema_migrations`,
    );
    const doneIds = new Set(done.rows.map((r) => r.id));
    for (const file of files) {
      const id = file.replace(/\.sql$/, '');
      if (doneIds.has(id)) continue;
      const sql = await readFile(path.join(opts.dir, file), 'utf8');
      await client.query(`set local search_path to ${opts.schema}, public`);
      await client.query(sql);
      await client.query(`insert into ${opts.schema}.schema_migrations (id) values ($1)`, [id]);
      opts.log.info({ migration: id }, 'migration applied');
      applied.push(id);
    }
  });
  return applied;
}
