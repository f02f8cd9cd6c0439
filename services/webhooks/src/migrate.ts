import { runMigrationProcess } from '@brand/shared/db';
import { MIGRATIONS_DIR, SCHEMA } from './db/migrations';

/** `node dist/migrate.js`: applies pending migrations and exits (the Helm Job, the local stack). */
runMigrationProcess(process.env, { name: 'webhooks', schema: SCHEMA, dir: MIGRATIONS_DIR });
