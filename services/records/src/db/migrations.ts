import path from 'node:path';
import { runMigrations, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';

/** The records service's schema; it owns every table in it and reads no other. */
export const SCHEMA = 'records';

/** services/records/migrations, from both src/db (jest) and dist/db (node). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

export function migrate(pool: Pool, log: Logger): Promise<string[]> {
  return runMigrations(pool, { schema: SCHEMA, dir: MIGRATIONS_DIR, log });
}
