import { withTransaction, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { SecretBox } from '@brand/shared/secrets';

/** What one reseal run did. */
export interface SsoResealOutcome {
  /** Connections whose client secret was sealed again under the current key. */
  resealed: number;
  /** Brands whose secret no configured key opens (a key removed too early); left as they were. */
  unreadable: string[];
}

/**
 * Re-encrypts every SSO client secret under the current WEBHOOK_SECRET_KEY, so the former keys
 * (WEBHOOK_SECRET_KEYS_PREVIOUS) can be removed: the same key rotation as receivers' secrets
 * (services/webhooks resealSecrets). A brand has one connection, so there are few rows: one
 * transaction locks those under a former key, each opened with the brand id it was sealed for
 * and sealed again. Safe while records runs (an owner's save waits for the lock) and safe to
 * run again; a row no configured key opens is reported, never changed.
 */
export async function resealSsoSecrets(deps: {
  pool: Pool;
  box: SecretBox;
  log: Logger;
}): Promise<SsoResealOutcome> {
  const outcome: SsoResealOutcome = { resealed: 0, unreadable: [] };
  await withTransaction(deps.pool, async (db) => {
    const { rows } = await db.query<{
      brand_id: string;
      client_secret_ciphertext: Buffer;
      client_secret_key_id: string;
    }>(
      `select brand_id, client_secret_ciphertext, client_secret_key_id from sso_connections
        where client_secret_key_id <> $1 order by brand_id for update`,
      [deps.box.currentKeyId],
    );
    for (const row of rows) {
      let secret: string;
      try {
        secret = deps.box.open(
          { ciphertext: row.client_secret_ciphertext, keyId: row.client_secret_key_id },
          row.brand_id,
        );
      } catch (err) {
        deps.log.error({ err, brand_id: row.brand_id }, 'no configured key opens this SSO secret');
        outcome.unreadable.push(row.brand_id);
        continue;
      }
      const sealed = deps.box.seal(secret, row.brand_id);
      await db.query(
        `update sso_connections set client_secret_ciphertext = $2, client_secret_key_id = $3
          where brand_id = $1`,
        [row.brand_id, sealed.ciphertext, sealed.keyId],
      );
      outcome.resealed++;
    }
  });
  return outcome;
}
