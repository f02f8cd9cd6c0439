import { z } from 'zod';
import { createPool } from '@brand/shared/db';
import { loadConfig, logLevelEnv } from '@brand/shared/config';
import { createLogger } from '@brand/shared/logger';
import { migrate, SCHEMA } from './db/migrations';

/** `node dist/migrate.js`: applies pending migrations and exits (the Helm Job, the local stack). */
const MigrateEnv = z.object({
  DATABASE_URL: z.string().url(),
  LOG_LEVEL: logLevelEnv.default('info'),
});

async function main(): Promise<void> {
  const config = loadConfig(MigrateEnv, process.env);
  const log = createLogger({ service: 'plans-migrate', level: config.LOG_LEVEL });
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: SCHEMA,
    max: 1,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 600_000,
    applicationName: 'plans-migrate',
    log,
  });
  try {
    const applied = await migrate(pool, log);
    log.info(
      { applied: applied.length },
      applied.length ? 'migrations applied' : 'schema up to date',
    );
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
