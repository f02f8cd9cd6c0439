// Loaded by jest through Node's own resolution: relative imports and npm packages only.
import { likePrefix, withAdminClient } from './pgAdmin';
import { dropDatabase } from './templateDb';
import { ENV_RUN_ID, TEST_DB_PREFIX } from './testEnv';

/** Drops the databases this run's test files left behind (a file that crashed, a missed close). */
export default async function globalTeardown(): Promise<void> {
  const runId = process.env[ENV_RUN_ID];
  if (!runId || !/^[0-9a-f]+$/.test(runId)) return;
  const left = await withAdminClient((c) =>
    c.query<{ datname: string }>('select datname from pg_database where datname like $1', [
      likePrefix(`${TEST_DB_PREFIX}${runId}_`),
    ]),
  );
  for (const { datname } of left.rows) await dropDatabase(datname, true);
}
