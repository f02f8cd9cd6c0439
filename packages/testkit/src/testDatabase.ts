import pg from 'pg';
import {
  ident,
  PG_INVALID_CATALOG_NAME,
  PG_OBJECT_IN_USE,
  pgCode,
  withAdminClient,
} from './pgAdmin';
import { randomHex } from './random';
import { dropDatabase, ensureTemplateDatabase } from './templateDb';
import {
  databaseUrl,
  ENV_RUN_ID,
  ENV_TEMPLATE_DB,
  requireSetupEnv,
  TEST_DB_PREFIX,
} from './testEnv';

/** A throwaway database with every service's schema migrated. */
export interface TestDatabase {
  name: string;
  /** Connection URL for a service process (DATABASE_URL). */
  url: string;
  /** A pool for the test itself; its search_path is every service's schema, records first. */
  pool: pg.Pool;
  /** Ends the pool and drops the database, cutting off any connection still open. */
  close(): Promise<void>;
}

/**
 * Clones the migrated template into `brand_t_<runId>_<random>` (milliseconds, unlike running
 * the migrations). If the template vanished meanwhile (another run on a newer migration tree
 * dropped it), it is rebuilt once.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const runId = requireSetupEnv(ENV_RUN_ID);
  let template = requireSetupEnv(ENV_TEMPLATE_DB);
  const name = `${TEST_DB_PREFIX}${runId}_${randomHex(4)}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await withAdminClient((c) =>
        c.query(`create database ${ident(name)} template ${ident(template)}`),
      );
      break;
    } catch (err) {
      const code = pgCode(err);
      if (attempt >= 5) throw err;
      if (code === PG_INVALID_CATALOG_NAME) {
        template = await ensureTemplateDatabase();
        process.env[ENV_TEMPLATE_DB] = template;
      } else if (code === PG_OBJECT_IN_USE) {
        // another session is briefly connected to the template; it goes away on its own
        await new Promise((r) => setTimeout(r, 200 * attempt));
      } else {
        throw err;
      }
    }
  }
  const url = databaseUrl(name);
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    options: '-c search_path=records,plans,webhooks,public',
  });
  pool.on('error', () => undefined);
  let closed = false;
  return {
    name,
    url,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end().catch(() => undefined);
      await dropDatabase(name, true);
    },
  };
}

/**
 * An empty database named like the test databases (globalTeardown drops a leftover), with no
 * schema at all: for a restore of a dump (issue 60's backup test) or a migration from nothing.
 */
export async function createEmptyDatabase(): Promise<{
  name: string;
  url: string;
  close(): Promise<void>;
}> {
  const name = `${TEST_DB_PREFIX}${requireSetupEnv(ENV_RUN_ID)}_${randomHex(4)}`;
  await withAdminClient((c) => c.query(`create database ${ident(name)}`));
  return { name, url: databaseUrl(name), close: () => dropDatabase(name, true) };
}
