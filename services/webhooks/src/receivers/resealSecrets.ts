import { withTransaction, type Pool } from '@brand/shared/db';
import type { Logger } from '@brand/shared/logger';
import type { SecretBox } from '@brand/shared/secrets';

/** What one reseal run did. */
export interface ResealOutcome {
  /** Receivers whose signing secret (or pending one) was sealed again under the current key. */
  resealed: number;
  /** Receivers none of the configured keys opens (a key removed too early); left as they were. */
  unreadable: string[];
  /** Receivers still under a former key because another transaction held them throughout. */
  remaining: number;
}

interface SealedRow {
  id: string;
  secret_ciphertext: Buffer;
  secret_key_id: string;
  pending_secret_ciphertext: Buffer | null;
  pending_secret_key_id: string | null;
}

/**
 * Re-encrypts every stored signing secret, and every pending one of a rotation, under the
 * current WEBHOOK_SECRET_KEY, so the former keys (WEBHOOK_SECRET_KEYS_PREVIOUS) can be removed.
 * Works in batches of `batchSize` rows, each in one transaction that locks its rows (a
 * concurrent switch or rotation waits for it, or is waited for); rows locked by another
 * transaction are skipped and taken in a later pass. Safe to run again and while the service
 * runs: a row already under the current key is not touched. A row no configured key opens is
 * reported, never changed; so are rows still held by others after 50 passes (`remaining`).
 */
export async function resealSecrets(
  deps: { pool: Pool; box: SecretBox; log: Logger },
  batchSize = 500,
): Promise<ResealOutcome> {
  const current = deps.box.currentKeyId;
  const outcome: ResealOutcome = { resealed: 0, unreadable: [], remaining: 0 };
  // Passes until no row is left under a former key: a pass skips rows another transaction
  // holds (a switch, a rotation), so the next one takes them once they are free.
  for (let pass = 0; pass < 50; pass++) {
    await resealPass(deps, current, batchSize, outcome);
    outcome.remaining = await countUnderFormerKeys(deps.pool, current, outcome.unreadable);
    if (outcome.remaining === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return outcome;
}

async function countUnderFormerKeys(pool: Pool, current: string, unreadable: string[]) {
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from receivers
      where (secret_key_id <> $1 or pending_secret_key_id <> $1) and not (id = any($2::text[]))`,
    [current, unreadable],
  );
  return rows[0]?.n ?? 0;
}

/** One pass over the rows under a former key, in batches, skipping rows others hold. */
async function resealPass(
  deps: { pool: Pool; box: SecretBox; log: Logger },
  current: string,
  batchSize: number,
  outcome: ResealOutcome,
): Promise<void> {
  for (;;) {
    const done = await withTransaction(deps.pool, async (db) => {
      const { rows } = await db.query<SealedRow>(
        `select id, secret_ciphertext, secret_key_id, pending_secret_ciphertext, pending_secret_key_id
           from receivers
          where (secret_key_id <> $1 or pending_secret_key_id <> $1)
            and not (id = any($2::text[]))
          order by id
          limit $3
          for update skip locked`,
        [current, outcome.unreadable, batchSize],
      );
      for (const row of rows) {
        try {
          // the receiver id is each secret's associated data, as when it was sealed
          const secret = deps.box.seal(
            deps.box.open({ ciphertext: row.secret_ciphertext, keyId: row.secret_key_id }, row.id),
            row.id,
          );
          const pending =
            row.pending_secret_ciphertext && row.pending_secret_key_id
              ? deps.box.seal(
                  deps.box.open(
                    { ciphertext: row.pending_secret_ciphertext, keyId: row.pending_secret_key_id },
                    row.id,
                  ),
                  row.id,
                )
              : undefined;
          await db.query(
            `update receivers
                set secret_ciphertext = $2, secret_key_id = $3,
                    pending_secret_ciphertext = coalesce($4, pending_secret_ciphertext),
                    pending_secret_key_id = coalesce($5, pending_secret_key_id)
              where id = $1`,
            [row.id, secret.ciphertext, secret.keyId, pending?.ciphertext, pending?.keyId],
          );
          outcome.resealed++;
        } catch (err) {
          deps.log.error({ err, receiver_id: row.id }, 'no configured key opens this secret');
          outcome.unreadable.push(row.id);
        }
      }
      return rows.length < batchSize;
    });
    if (done) return;
  }
}
