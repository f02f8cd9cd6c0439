/**
 * Names and defaults shared by globalSetup (which must not import @brand/*) and the
 * per-file helpers. globalSetup writes the BRAND_TEST_* variables; jest hands its
 * process.env to the workers.
 */
export const ENV_TEMPLATE_DB = 'BRAND_TEST_TEMPLATE_DB';
export const ENV_RUN_ID = 'BRAND_TEST_RUN_ID';

/** A superuser connection to any existing database; used to create and drop databases. */
export function adminDatabaseUrl(): string {
  return process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The same server as the admin URL, another database. */
export function databaseUrl(database: string): string {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

/** Per-run throwaway databases are `brand_t_<runId>_<random>`; teardown drops the run's. */
export const TEST_DB_PREFIX = 'brand_t_';
export const TEMPLATE_DB_PREFIX = 'brand_tpl_';

/** Reads a variable globalSetup must have set, with a hint when a file runs outside it. */
export function requireSetupEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: integration tests must run in the jest "integration" project ` +
        `(npx jest --selectProjects integration ...), whose globalSetup prepares the template database.`,
    );
  }
  return value;
}
