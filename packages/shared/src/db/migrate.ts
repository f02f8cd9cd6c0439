import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger';
import { SQLSTATE, sqlState } from './pgErrors';
import { withTransaction, type Pool } from './pool';

/**
 * How long a migration may queue for a table's lock before it gives way, and for how long in
 * all it keeps coming back. PostgreSQL queues every later query on a table behind a waiting
 * `alter table`: a migration stuck behind one long transaction (a report, an open psql) would
 * stop all traffic to that table for as long as it waits. With a lock timeout it stops traffic
 * for at most `lockTimeoutMs`, steps aside (its transaction rolled back: nothing half-applied)
 * and tries again after a pause that doubles up to 30 s, until `lockWaitMaxMs` has passed.
 */
export interface MigrationLockPolicy {
  lockTimeoutMs: number;
  lockWaitMaxMs: number;
}

/**
 * Defaults: 2 s of traffic held at most per try; 150 s in all from the first refusal, so the
 * chart's one Job, which migrates records, plans and webhooks in turn within its 600 s, can
 * give each its whole wait and still end by saying why.
 */
export const DEFAULT_MIGRATION_LOCK_POLICY: MigrationLockPolicy = {
  lockTimeoutMs: 2_000,
  lockWaitMaxMs: 150_000,
};

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30_000;

/**
 * Applies the pending forward-only migrations `NNNN_description.sql` from `dir` to
 * `schema`, in order, each in a transaction of its own with its row in
 * `<schema>.schema_migrations` (PostgreSQL DDL is transactional, so a failed migration leaves
 * nothing half-applied). One transaction each, not one for all: the locks a migration takes
 * (an `alter table`'s, held to its commit) are let go when it commits, not held while every
 * later one runs, and a try that gives way to traffic gives up one migration's work, not all
 * of it. Each migration is expand-only (migrationRules.ts), so the previous release serves on
 * any prefix of them. A transaction-scoped advisory lock serialises concurrent runners
 * (several replicas, or a Job racing a dev script): the second waits, then finds the work
 * done. Every lock after that one is taken under the lock policy above. Returns the ids
 * applied by this call.
 */
export async function runMigrations(
  pool: Pool,
  opts: { schema: string; dir: string; log: Logger; lock?: MigrationLockPolicy },
): Promise<string[]> {
  const policy = opts.lock ?? DEFAULT_MIGRATION_LOCK_POLICY;
  const files = (await readdir(opts.dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  // counted from the first refusal: waiting for another runner first is no refusal
  let giveUpAt: number | undefined;
  for (let attempt = 1, pause = FIRST_PAUSE_MS; ; attempt += 1, pause *= 2) {
    try {
      for (;;) {
        const id = await applyNext(pool, { ...opts, files, lockTimeoutMs: policy.lockTimeoutMs });
        if (id === undefined) return applied;
        applied.push(id);
      }
    } catch (err) {
      if (sqlState(err) !== SQLSTATE.lockNotAvailable) throw err;
      giveUpAt ??= Date.now() + policy.lockWaitMaxMs;
      const wait = Math.min(pause, LONGEST_PAUSE_MS);
      const blockers = await longTransactions(pool).catch(() => []);
      if (Date.now() + wait > giveUpAt) {
        throw new Error(
          `migrations of ${opts.schema} gave way to other transactions' locks for ` +
            `${Math.round(policy.lockWaitMaxMs / 1000)} s (${attempt} tries) and stopped; ` +
            `applied before that: ${applied.length > 0 ? applied.join(', ') : 'none'}, ` +
            `the next one not. Transactions open longest: ${JSON.stringify(blockers)}`,
        );
      }
      opts.log.warn(
        { schema: opts.schema, attempt, retryInMs: wait, openTransactions: blockers },
        'a migration waited past its lock timeout and gave way to traffic; trying again',
      );
      await sleep(wait);
    }
  }
}

/**
 * Applies the first pending migration of `files` in a transaction of its own and returns its
 * id, or undefined when none is pending. Logged once committed: a try that gave way applied
 * nothing.
 */
async function applyNext(
  pool: Pool,
  opts: { schema: string; dir: string; log: Logger; files: string[]; lockTimeoutMs: number },
): Promise<string | undefined> {
  const applied = await withTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`migrate:${opts.schema}`]);
    // After the runners' own lock: waiting for another runner holds up no traffic.
    await client.query(`select set_config('lock_timeout', $1, true)`, [`${opts.lockTimeoutMs}ms`]);
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
    const file = opts.files.find((f) => !doneIds.has(f.replace(/\.sql$/, '')));
    if (file === undefined) return undefined;
    const id = file.replace(/\.sql$/, '');
    const sql = await readFile(path.join(opts.dir, file), 'utf8');
    await client.query(`set local search_path to ${opts.schema}, public`);
    await client.query(sql);
    await client.query(`insert into ${opts.schema}.schema_migrations (id) values ($1)`, [id]);
    return id;
  });
  if (applied !== undefined) opts.log.info({ migration: applied }, 'migration applied');
  return applied;
}

/**
 * The other sessions of this database whose transactions are oldest: what a migration waits on.
 * Named by pid, application and age, never by their SQL (it may hold anything; the logs must not).
 */
async function longTransactions(pool: Pool): Promise<object[]> {
  const { rows } = await pool.query<object>(
    `select pid, application_name as application, state,
            round(extract(epoch from now() - xact_start))::int as open_seconds
       from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
      order by xact_start
      limit 3`,
  );
  return rows;
}
