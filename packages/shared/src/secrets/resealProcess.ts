import { z } from 'zod';
import { commaListEnv, databaseEnv, loadConfig, logLevelEnv } from '../config';
import { checkDatabaseTls, createServicePool, type Pool } from '../db';
import { createLogger, type Logger } from '../logger';
import { SecretBox } from './secretBox';
import { secretKeyEnv } from './secretKeyEnv';

const ResealEnv = z
  .object({
    // PostgreSQL, with verified TLS as the services have it (DATABASE_SSL_CA_FILE)
    ...databaseEnv,
    LOG_LEVEL: logLevelEnv.default('info'),
    /** The key to seal under: the newest one. */
    WEBHOOK_SECRET_KEY: secretKeyEnv,
    /** Every former key still sealing some row (comma-separated). */
    WEBHOOK_SECRET_KEYS_PREVIOUS: commaListEnv,
  })
  .superRefine(checkDatabaseTls);

/** What one service's reseal did: rows it moved, rows no key opens, rows still under a former key. */
export interface ResealOutcome {
  resealed: number;
  unreadable: readonly unknown[];
  remaining?: number;
}

/**
 * The whole of a service's `dist/resealSecrets.js`, one step of rotating WEBHOOK_SECRET_KEY
 * (docs/operating.md "Rotating the secrets key"): runs `reseal` with a SecretBox of the
 * configured keys, logs what it did, and exits 0 when every secret is under the current key
 * (nothing unreadable, nothing remaining), 1 otherwise or with the reason on stderr.
 */
export function runResealProcess(
  env: NodeJS.ProcessEnv,
  service: {
    name: string;
    schema: string;
    reseal: (deps: { pool: Pool; box: SecretBox; log: Logger }) => Promise<ResealOutcome>;
    /** The log line when every secret is under the current key, and when not. */
    said: { complete: string; incomplete: string };
  },
): void {
  const run = async (): Promise<void> => {
    const config = loadConfig(ResealEnv, env);
    const log = createLogger({ service: `${service.name}-reseal`, level: config.LOG_LEVEL });
    const box = new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEYS_PREVIOUS);
    const pool = createServicePool(config, {
      schema: service.schema,
      name: `${service.name}-reseal`,
      log,
      max: 1,
    });
    try {
      const outcome = await service.reseal({ pool, box, log });
      const complete = outcome.unreadable.length === 0 && (outcome.remaining ?? 0) === 0;
      log.info(
        {
          resealed: outcome.resealed,
          unreadable: outcome.unreadable.length,
          ...(outcome.remaining === undefined ? {} : { remaining: outcome.remaining }),
          key_id: box.currentKeyId,
        },
        complete ? service.said.complete : service.said.incomplete,
      );
      process.exitCode = complete ? 0 : 1;
    } finally {
      await pool.end();
    }
  };
  run().catch((err: unknown) => {
    process.stderr.write(`reseal failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
