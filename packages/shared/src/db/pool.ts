import pg from 'pg';
import { liveSecretFile } from '../config/secretFiles';
import type { Logger } from '../logger';
import { SQLSTATE, sqlState } from './pgErrors';
import { databaseTlsWarning, pgConnection } from './tlsOptions';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  connectionString: string;
  /** The CA for sslmode=verify-full / verify-ca (DATABASE_SSL_CA_FILE); see pgConnection. */
  sslCaFile?: string | undefined;
  /** DATABASE_PASSWORD_FILE: the user's password, read at each new connection (passwordFrom). */
  passwordFile?: string | undefined;
  /** The service's own schema; every connection's search_path starts with it. */
  schema: string;
  max: number;
  /** How long to wait for a connection before failing the query (and the call). */
  connectTimeoutMs: number;
  /** Server-side cap on any one statement. */
  statementTimeoutMs: number;
  applicationName: string;
  log: Logger;
}

/**
 * A pool bound to one service schema. An idle client that loses its connection emits
 * 'error' on the pool; without a listener that would crash the process, so it is logged
 * and the pool replaces the client on next use.
 */
export function createPool(opts: PoolOptions): Pool {
  if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`bad schema name ${opts.schema}`);
  const connection = pgConnection({
    DATABASE_URL: opts.connectionString,
    DATABASE_SSL_CA_FILE: opts.sslCaFile,
  });
  const pool = new pg.Pool({
    ...(opts.passwordFile ? passwordFrom(connection, opts.passwordFile) : connection),
    max: opts.max,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName,
    options: `-c search_path=${opts.schema},public -c statement_timeout=${opts.statementTimeoutMs}`,
    keepAlive: true,
  });
  pool.on('error', (err) => opts.log.warn({ err }, 'idle database connection failed'));
  return pool;
}

/**
 * The connection with its password from `file`, read when a connection opens and again once the
 * file changed (issue 60: a rotated database password reaches new connections without a
 * restart). pg takes a function as the password only beside discrete settings: a connection
 * string's own (empty) password would win over it, so the URL is taken apart here.
 */
function passwordFrom(connection: ReturnType<typeof pgConnection>, file: string): pg.PoolConfig {
  const url = new URL(connection.connectionString);
  const current = liveSecretFile(file);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    ...(url.port ? { port: Number(url.port) } : {}),
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
    ...(url.pathname.length > 1 ? { database: decodeURIComponent(url.pathname.slice(1)) } : {}),
    ...(connection.ssl === undefined ? {} : { ssl: connection.ssl }),
    password: () => current(),
  };
}

/** The settings of `databaseEnv` (@brand/shared/config) a pool is built from. */
export interface DatabaseSettings {
  DATABASE_URL: string;
  DATABASE_SSL_CA_FILE?: string | undefined;
  DATABASE_PASSWORD_FILE?: string | undefined;
  DATABASE_POOL_MAX: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
}

/** The TLS warnings this process logged already: once each, not once per pool. */
const warned = new Set<string>();

/**
 * A service's pool from its configuration: `name` shows in pg_stat_activity; `max`
 * overrides DATABASE_POOL_MAX for a side pool (e.g. the outbox relay's own connections).
 */
export function createServicePool(
  config: DatabaseSettings,
  opts: { schema: string; name: string; log: Logger; max?: number },
): Pool {
  const warning = databaseTlsWarning(
    { DATABASE_URL: config.DATABASE_URL, DATABASE_SSL_CA_FILE: config.DATABASE_SSL_CA_FILE },
    process.env.PGSSLMODE,
  );
  if (warning !== undefined && !warned.has(warning)) {
    warned.add(warning);
    opts.log.warn({ pool: opts.name }, warning);
  }
  return createPool({
    connectionString: config.DATABASE_URL,
    sslCaFile: config.DATABASE_SSL_CA_FILE,
    passwordFile: config.DATABASE_PASSWORD_FILE,
    schema: opts.schema,
    max: opts.max ?? config.DATABASE_POOL_MAX,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    applicationName: opts.name,
    log: opts.log,
  });
}

/**
 * Runs `fn` in a transaction on one client: commit on success, rollback and rethrow on
 * failure. The client is released either way (destroyed if rollback itself failed or its
 * connection was lost). `afterCommit` runs on the same client once the commit succeeded,
 * before it is released (a read of what the commit made visible, without waiting for the
 * pool again). It should not reject: the transaction is committed, so its error reaches the
 * caller as the call's failure although the change took place.
 */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  afterCommit?: (client: PoolClient, result: T) => Promise<void>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost while the client is checked out emits 'error' on it, and an 'error'
  // without a listener crashes the process (pool.query guards its own clients; pool.connect
  // leaves that to the caller). The pending or next query fails anyway; the client is dropped.
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on('error', onError);
  try {
    let result: T;
    try {
      await client.query('begin');
      result = await fn(client);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
      // A connection to a demoted primary refuses every write: drop it, so the next one is
      // opened where the database's address leads now (pool.query drops its own on any error).
      if (sqlState(err) === SQLSTATE.readOnlySqlTransaction) broken ??= err as Error;
      throw err;
    }
    await afterCommit?.(client, result);
    return result;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}
