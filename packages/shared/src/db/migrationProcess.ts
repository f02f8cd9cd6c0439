import { z } from 'zod';
import { loadConfig, logLevelEnv, msEnv, optionalEnv } from '../config';
import { createLogger } from '../logger';
import { DEFAULT_MIGRATION_LOCK_POLICY, runMigrations } from './migrate';
import { createPool } from './pool';
import { checkDatabaseTls } from './tlsOptions';

const MigrateEnv = z
  .object({
    DATABASE_URL: z.string().url(),
    /** The CA for sslmode=verify-full (docs/operating.md "Verified TLS to PostgreSQL"). */
    DATABASE_SSL_CA_FILE: optionalEnv(z.string().min(1)),
    /** The password of DATABASE_URL's user, from a file (docs/operating.md "Rotating credentials"). */
    DATABASE_PASSWORD_FILE: optionalEnv(z.string().min(1)),
    LOG_LEVEL: logLevelEnv.default('info'),
    /** How long a migration may hold traffic up queuing for a table's lock (migrate.ts). */
    MIGRATION_LOCK_TIMEOUT_MS: msEnv.default(DEFAULT_MIGRATION_LOCK_POLICY.lockTimeoutMs),
    /** How long in all it keeps giving way and trying again before it fails. */
    MIGRATION_LOCK_WAIT_MAX_MS: msEnv.default(DEFAULT_MIGRATION_LOCK_POLICY.lockWaitMaxMs),
  })
  .superRefine(checkDatabaseTls);

/**
 * The whole of a service's `dist/migrate.js` (the Helm Job, the local stack, the test
 * template): applies the service's pending migrations to DATABASE_URL and exits, 0 when the
 * schema is up to date, 1 with the reason on stderr when it is not.
 */
export function runMigrationProcess(
  env: NodeJS.ProcessEnv,
  service: { name: string; schema: string; dir: string },
): void {
  const run = async (): Promise<void> => {
    const config = loadConfig(MigrateEnv, env);
    const log = createLogger({ service: `${service.name}-migrate`, level: config.LOG_LEVEL });
    const pool = createPool({
      connectionString: config.DATABASE_URL,
      sslCaFile: config.DATABASE_SSL_CA_FILE,
      passwordFile: config.DATABASE_PASSWORD_FILE,
      schema: service.schema,
      max: 1,
      connectTimeoutMs: 10_000,
      // migrations may rewrite big tables: no statement timeout worth the name
      statementTimeoutMs: 600_000,
      applicationName: `${service.name}-migrate`,
      log,
    });
    try {
      const applied = await runMigrations(pool, {
        schema: service.schema,
        dir: service.dir,
        log,
        lock: {
          lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
          lockWaitMaxMs: config.MIGRATION_LOCK_WAIT_MAX_MS,
        },
      });
      log.info(
        { applied: applied.length },
        applied.length ? 'migrations applied' : 'schema up to date',
      );
    } finally {
      await pool.end();
    }
  };
  run().catch((err: unknown) => {
    process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
