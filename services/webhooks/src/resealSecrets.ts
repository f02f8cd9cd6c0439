import { runResealProcess } from '@brand/shared/secrets';
import { SCHEMA } from './db/migrations';
import { resealSecrets } from './receivers/resealSecrets';

/**
 * `node services/webhooks/dist/resealSecrets.js`: the last step of rotating the key that
 * encrypts receivers' signing secrets at rest (docs/operating.md "Rotating the secrets key").
 * Re-encrypts every stored secret under WEBHOOK_SECRET_KEY with the same settings the
 * service runs with; exits 0 when every secret is under it (the former keys can go), 1 when
 * some secret no configured key opens (their receiver ids are logged) or is still held.
 */
runResealProcess(process.env, {
  name: 'webhooks',
  schema: SCHEMA,
  reseal: resealSecrets,
  said: {
    complete: 'every signing secret is sealed under the current key; former keys may be removed',
    incomplete:
      'some signing secrets are not under the current key; keep the former keys and run again',
  },
});
