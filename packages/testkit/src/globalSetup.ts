// Loaded by jest through Node's own resolution (no moduleNameMapper): relative imports and
// npm packages only, never @brand/*.
import { buildServices } from './build';
import { checkInfrastructure, warnWithoutKafka } from './infraCheck';
import { randomHex } from './random';
import { ensureTemplateDatabase } from './templateDb';
import { ENV_RUN_ID, ENV_TEMPLATE_DB } from './testEnv';

/**
 * Once per `jest` run of the integration project: build the services, check PostgreSQL and
 * Redis (and say when no Kafka broker answers), make sure the migrated template database
 * exists, and hand its name and a run id to the workers through process.env.
 */
export default async function globalSetup(): Promise<void> {
  buildServices();
  await checkInfrastructure();
  await warnWithoutKafka();
  process.env[ENV_TEMPLATE_DB] = await ensureTemplateDatabase();
  process.env[ENV_RUN_ID] = randomHex(4);
}
