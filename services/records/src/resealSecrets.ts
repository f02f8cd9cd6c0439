import { z } from 'zod';
import { commaListEnv, databaseEnv, loadConfig, logLevelEnv } from '@brand/shared/config';
import { createServicePool } from '@brand/shared/db';
import { createLogger } from '@brand/shared/logger';
import { SecretBox, secretKeyEnv } from '@brand/shared/secrets';
import { SCHEMA } from './db/migrations';
import { resealSsoSecrets } from './sso/resealSsoSecrets';

const ResealEnv = z.object({
  ...databaseEnv,
  LOG_LEVEL: logLevelEnv.default('info'),
  /** The key to seal under: the newest one. */
  WEBHOOK_SECRET_KEY: secretKeyEnv,
  /** Every former key still sealing some row (comma-separated). */
  WEBHOOK_SECRET_KEYS_PREVIOUS: commaListEnv,
});

/**
 * `node services/records/dist/resealSecrets.js`: records' part of rotating WEBHOOK_SECRET_KEY
 * (docs/operating.md "Rotating the secrets key"), beside webhooks' own resealSecrets.js.
 * Re-encrypts every SSO client secret under WEBHOOK_SECRET_KEY; exits 0 when every one is
 * under it, 1 when some secret no configured key opens (their brand ids are logged).
 */
async function main(): Promise<void> {
  const config = loadConfig(ResealEnv, process.env);
  const log = createLogger({ service: 'records-reseal', level: config.LOG_LEVEL });
  const box = new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEYS_PREVIOUS);
  const pool = createServicePool(config, { schema: SCHEMA, name: 'records-reseal', log, max: 1 });
  try {
    const outcome = await resealSsoSecrets({ pool, box, log });
    const complete = outcome.unreadable.length === 0;
    log.info(
      {
        resealed: outcome.resealed,
        unreadable: outcome.unreadable.length,
        key_id: box.currentKeyId,
      },
      complete
        ? 'every SSO client secret is sealed under the current key'
        : 'some SSO client secrets are not under the current key; keep the former keys',
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
