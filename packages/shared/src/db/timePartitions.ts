import { withTransaction, type Pool, type PoolClient } from './pool';
import { SQLSTATE, sqlState } from './pgErrors';

type Db = Pool | PoolClient;

const DAY_MS = 24 * 3600_000;

/**
 * A table partitioned by range of a timestamptz column into one partition per run of `days`
 * UTC days (one day unless said), named `<table>_pYYYYMMDD` after its first day, plus a
 * `<table>_default` partition that catches a row no period's partition holds (the keeper was
 * down longer than it creates ahead), so an insert never fails for want of a partition.
 * History is bounded by dropping whole partitions: no mass DELETE, no dead rows for vacuum to
 * chase (the test machines run with autovacuum off; production's autovacuum then has only the
 * live periods to visit).
 */
export interface TimePartitionedTable {
  /** The schema that owns the table (each service's own). */
  schema: string;
  table: string;
  /**
   * Days per partition (default 1). Periods start at multiples of this many days since
   * 1970-01-01, so every replica names the same ones. A longer period keeps the count of
   * partitions small under a long retention: every query that cannot prune by the key
   * visits each partition's index.
   */
  days?: number;
  /**
   * The partitions' fillfactor (PostgreSQL's default, 100, unless said): room left in each
   * page so an update that changes no indexed column stays in its page (a HOT update).
   */
  fillfactor?: number;
}

/** One period's partition and the UTC time it holds [from, to). */
export interface TimePartition {
  name: string;
  from: Date;
  to: Date;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const partitionName = (t: TimePartitionedTable, day: Date): string =>
  `${t.table}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
const periodMs = (t: TimePartitionedTable): number => (t.days ?? 1) * DAY_MS;
/** The start of the period holding `at`. */
const startOfPeriod = (t: TimePartitionedTable, at: Date): Date =>
  new Date(Math.floor(at.getTime() / periodMs(t)) * periodMs(t));

/** The partitions (`c`) of a table (`p`, in schema `n`): the FROM of the queries below. */
const PARTITIONS_OF = `select c.relname as name from pg_inherits i
     join pg_class c on c.oid = i.inhrelid
     join pg_class p on p.oid = i.inhparent
     join pg_namespace n on n.oid = p.relnamespace`;

/** The periods' partitions that exist, oldest first (the default partition is not one). */
export async function listTimePartitions(
  db: Db,
  t: TimePartitionedTable,
): Promise<TimePartition[]> {
  const res = await db.query<{ name: string }>(
    `${PARTITIONS_OF}
     where n.nspname = $1 and p.relname = $2 and c.relname ~ ('^' || $2 || '_p[0-9]{8}$')
     order by c.relname`,
    [t.schema, t.table],
  );
  return res.rows.map(({ name }) => {
    const d = name.slice(-8);
    const from = new Date(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T00:00:00Z`);
    return { name, from, to: new Date(from.getTime() + periodMs(t)) };
  });
}

/**
 * Runs `ddl` in a transaction of its own under the table's advisory lock (replicas keeping
 * partitions at once take turns) and a short lock_timeout: creating or dropping a partition
 * locks the parent briefly, and must not queue every insert behind a long transaction; a
 * timeout is left to the next pass.
 */
async function partitionDdl(pool: Pool, t: TimePartitionedTable, ddl: string): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(`select pg_advisory_xact_lock(hashtext($1))`, [`${t.schema}.${t.table}`]);
    await c.query(`set local lock_timeout = '5s'`);
    await c.query(ddl);
  });
}

/**
 * Creates the partitions of [now - 1 day, now + daysAhead] that are missing. Safe for
 * replicas at once. A day whose rows already sit in the default partition cannot get its own
 * partition (PostgreSQL refuses it): it is skipped and reported, and those rows stay in the
 * default partition. Returns the partitions created and the days skipped.
 */
export async function ensureTimePartitions(
  pool: Pool,
  t: TimePartitionedTable,
  opts: { now?: Date; daysAhead: number },
): Promise<{ created: string[]; skipped: string[] }> {
  const now = (opts.now ?? new Date()).getTime();
  const existing = new Set((await listTimePartitions(pool, t)).map((p) => p.name));
  const created: string[] = [];
  const skipped: string[] = [];
  const last = now + opts.daysAhead * DAY_MS;
  for (
    let from = startOfPeriod(t, new Date(now - DAY_MS));
    from.getTime() <= last;
    from = new Date(from.getTime() + periodMs(t))
  ) {
    const name = partitionName(t, from);
    if (existing.has(name)) continue;
    const to = new Date(from.getTime() + periodMs(t));
    try {
      await partitionDdl(
        pool,
        t,
        `create table if not exists ${quote(t.schema)}.${quote(name)}
         partition of ${quote(t.schema)}.${quote(t.table)}
         for values from ('${from.toISOString()}') to ('${to.toISOString()}')${
           t.fillfactor === undefined ? '' : ` with (fillfactor = ${Math.trunc(t.fillfactor)})`
         }`,
      );
      created.push(name);
    } catch (err) {
      if (sqlState(err) !== SQLSTATE.checkViolation) throw err;
      skipped.push(name); // its rows are in the default partition
    }
  }
  return { created, skipped };
}

/**
 * Drops the partitions that end at or before `before`, oldest first, unless `keep` says a
 * partition still holds something that must not go (an unpublished outbox row, say). Returns
 * the partitions dropped.
 */
export async function dropTimePartitionsBefore(
  pool: Pool,
  t: TimePartitionedTable,
  before: Date,
  keep: (partition: string) => Promise<boolean> = () => Promise.resolve(false),
): Promise<string[]> {
  const dropped: string[] = [];
  for (const p of await listTimePartitions(pool, t)) {
    if (p.to.getTime() > before.getTime()) break;
    if (await keep(p.name)) continue;
    await partitionDdl(pool, t, `drop table if exists ${quote(t.schema)}.${quote(p.name)}`);
    dropped.push(p.name);
  }
  return dropped;
}

/**
 * Gives the table's partitions (the default one too) fresh planner statistics where their
 * rows changed more than autovacuum's default analyze threshold (50 rows and 10 % of those
 * counted at the last analyze) since they were last analyzed, and returns the partitions
 * analyzed. A period's partition is made empty, ahead of time: until something analyzes it,
 * the plans of the statements prepared against it (the hot path's named statements keep a
 * generic plan per connection) take it for the size it had then, and a claim seq-scanned a
 * week of deliveries to lock thirteen (issue 36). Production's autovacuum does the same, so
 * this is cheap there; where autovacuum is off (the test machines) it is the only analyze.
 */
export async function analyzeChangedPartitions(
  pool: Pool,
  t: TimePartitionedTable,
): Promise<string[]> {
  const res = await pool.query<{ name: string }>(
    `${PARTITIONS_OF}
     join pg_stat_user_tables s on s.relid = c.oid
     where n.nspname = $1 and p.relname = $2
       and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
     order by c.relname`,
    [t.schema, t.table],
  );
  for (const { name } of res.rows) await pool.query(`analyze ${quote(t.schema)}.${quote(name)}`);
  return res.rows.map(({ name }) => name);
}
