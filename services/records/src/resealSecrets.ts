import { runResealProcess } from '@brand/shared/secrets';
import { SCHEMA } from './db/migrations';
import { resealSsoSecrets } from './sso/resealSsoSecrets';

/**
 * `node services/records/dist/resealSecrets.js`: records' part of rotating WEBHOOK_SECRET_KEY
 * (docs/operating.md "Rotating the secrets key"), beside webhooks' own resealSecrets.js.
 * Re-encrypts every SSO client secret under WEBHOOK_SECRET_KEY; exits 0 when every one is
 * under it, 1 when some secret no configured key opens (their brand ids are logged).
 */
runResealProcess(process.env, {
  name: 'records',
  schema: SCHEMA,
  reseal: resealSsoSecrets,
  said: {
    complete: 'every SSO client secret is sealed under the current key',
    incomplete: 'some SSO client secrets are not under the current key; keep the former keys',
  },
});
