import { z } from 'zod';
import { commaListEnv, databaseEnv, loadConfig, logLevelEnv } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { SCHEMA } from './db/migrations';
import { resealSecrets } from './receivers/resealSecrets';
import { SecretBox } from '@brand/shared/secrets';

const ResealEnv = z.object({
  ...databaseEnv,
  LOG_LEVEL: logLevelEnv.default('info'),
  /** The key to seal under: the newest one. */
  WEBHOOK_SECRET_KEY: z.string(),
  /** Every former key still sealing some row (comma-separated). */
  WEBHOOK_SECRET_KEYS_PREVIOUS: commaListEnv,
});

/**
 * `node services/webhooks/dist/resealSecrets.js`: the last step of rotating the key that
 * encrypts receivers' signing secrets at rest (docs/operating.md "Rotating the secrets key").
 * Re-encrypts every stored secret under WEBHOOK_SECRET_KEY with the same settings the
 * service runs with; exits 0 when every secret is under it (the former keys can go), 1 when
 * some secret no configured key opens (their receiver ids are logged) or is still held.
 */
async function main(): Promise<void> {
  const config = loadConfig(ResealEnv, process.env);
  const log = createLogger({ service: 'webhooks-reseal', level: config.LOG_LEVEL });
  const box = new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEYS_PREVIOUS);
  const pool = createServicePool(config, { schema: SCHEMA, name: 'webhooks-reseal', log, max: 1 });
  try {
    const outcome = await resealSecrets({ pool, box, log });
    const complete = outcome.unreadable.length === 0 && outcome.remaining === 0;
    log.info(
      {
        resealed: outcome.resealed,
        unreadable: outcome.unreadable.length,
        remaining: outcome.remaining,
        key_id: box.currentKeyId,
      },
      complete
        ? 'every signing secret is sealed under the current key; former keys may be removed'
        : 'some signing secrets are not under the current key; keep the former keys and run again',
    );
    process.exitCode = complete ? 0 : 1;
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`reseal failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
