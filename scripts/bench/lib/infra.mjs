// The benchmark's own PostgreSQL database and Redis key prefix: created for one run,
// removed at its end (and, for databases, by a later run if this one was killed).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const DB_PREFIX = 'brand_bench_';
/** A killed run's database is dropped by a later run once it is this old and unused. */
const STALE_AFTER_SECONDS = 15 * 60;

function adminDatabaseUrl() {
  return (
    process.env.BENCH_PG_ADMIN_URL ??
    process.env.TEST_PG_ADMIN_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres'
  );
}

export function redisUrl() {
  return process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

export function databaseUrl(name) {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin(fn) {
  const client = new pg.Client({
    connectionString: adminDatabaseUrl(),
    connectionTimeoutMillis: 5_000,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function ident(name) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unexpected database name ${name}`);
  return `"${name}"`;
}

/** `brand_bench_<unix seconds>_<random>`: the time lets a later run recognise leftovers. */
export function newDatabaseName() {
  return `${DB_PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(3).toString('hex')}`;
}

export async function createDatabase(name) {
  await withAdmin((c) => c.query(`create database ${ident(name)}`));
}

export async function dropDatabase(name) {
  await withAdmin((c) => c.query(`drop database if exists ${ident(name)} with (force)`));
}

/**
 * Drops benchmark databases left by runs that were killed (SIGKILL gives no chance to
 * clean up): older than 15 minutes and with nobody connected. Returns their names.
 */
export async function dropStaleDatabases() {
  const now = Math.floor(Date.now() / 1000);
  const rows = await withAdmin(async (c) => {
    const r = await c.query(
      `select d.datname from pg_database d
       where d.datname like $1
         and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`,
      [`${DB_PREFIX.replace(/_/g, '\\_')}%`],
    );
    return r.rows;
  });
  const dropped = [];
  for (const { datname } of rows) {
    const born = Number(/^brand_bench_(\d+)_/.exec(datname)?.[1]);
    if (!Number.isFinite(born) || now - born < STALE_AFTER_SECONDS) continue;
    await dropDatabase(datname).catch(() => undefined);
    dropped.push(datname);
  }
  return dropped;
}

/**
 * Waits until no session is connected to `name` (backends flush their statistics on exit),
 * or none of these `applicationNames` when given.
 */
export async function waitForNoSessions(name, timeoutMs = 10_000, applicationNames = undefined) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const n = await withAdmin(async (c) => {
      const r = await c.query(
        `select count(*)::int as n from pg_stat_activity
         where datname = $1 and pid <> pg_backend_pid()
           and ($2::text[] is null or application_name = any($2::text[]))`,
        [name, applicationNames ?? null],
      );
      return r.rows[0].n;
    });
    if (n === 0) return;
    await sleep(100);
  }
  throw new Error(`sessions to ${name} did not end within ${timeoutMs} ms`);
}

/**
 * Row-level work counters of the records schema (cumulative): rows written, and
 * submissions rows read by sequential and index scans. Exact once every backend that
 * did the work has exited (PostgreSQL 15 flushes a backend's statistics on exit, and
 * otherwise only every few seconds).
 */
export async function tableCounters(name) {
  const client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
  try {
    const r = await client.query(
      `select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint as rows_written,
              coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0))
                filter (where relname = 'submissions'), 0)::bigint as submission_rows_read
       from pg_stat_user_tables where schemaname = 'records'`,
    );
    return {
      rowsWritten: Number(r.rows[0].rows_written),
      submissionRowsRead: Number(r.rows[0].submission_rows_read),
    };
  } finally {
    await client.end();
  }
}

/** `bench:<unix seconds>:<random>:`, a prefix no other stack uses. */
export function newRedisPrefix() {
  return `bench:${Math.floor(Date.now() / 1000)}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every Redis key starting with `prefix` (SCAN + UNLINK); returns how many. */
export async function deleteRedisPrefix(prefix) {
  if (!prefix) throw new Error('refusing to delete every key in Redis');
  const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** Fails early, with the fix, when PostgreSQL or Redis does not answer. */
export async function checkInfrastructure() {
  try {
    await withAdmin((c) => c.query('select 1'));
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${adminDatabaseUrl()} (${err.message}); start it or set BENCH_PG_ADMIN_URL`,
    );
  }
  const redis = new Redis(redisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(
      `Redis is not reachable at ${redisUrl()} (${err.message}); start it or set BENCH_REDIS_URL`,
    );
  } finally {
    redis.disconnect();
  }
}

/**
 * The pids of the PostgreSQL backends serving database `name` for `applicationName` (one
 * name or several; pool connections stay open, so their CPU can be read from /proc between
 * slices).
 */
export async function backendPids(name, applicationName) {
  const client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    const r = await client.query(
      'select pid from pg_stat_activity where datname = $1 and application_name = any($2::text[])',
      [name, [applicationName].flat()],
    );
    return r.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Rows PostgreSQL reads per row it returns for one query, exactly, from EXPLAIN ANALYZE:
 * every scan node's actual rows plus the rows its filter removed (per loop), over the
 * top node's rows. Keyset + LIMIT reads what it returns (1.0); OFFSET, or an ORDER BY the
 * index cannot serve (sort every matching row), reads far more. `searchPath` as the
 * service sets it.
 */
export async function rowsReadPerRow(url, sql, params, searchPath = 'records') {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`set search_path = ${searchPath}`);
    const r = await client.query(`explain (analyze, format json) ${sql}`, params);
    const top = r.rows[0]['QUERY PLAN'][0].Plan;
    let read = 0;
    const walk = (node) => {
      // a Bitmap Index Scan only finds rows its Bitmap Heap Scan then reads (and counts)
      if (/Scan/.test(node['Node Type']) && node['Node Type'] !== 'Bitmap Index Scan')
        read +=
          (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(top);
    return { read, returned: top['Actual Rows'], perRow: read / Math.max(1, top['Actual Rows']) };
  } finally {
    await client.end();
  }
}
