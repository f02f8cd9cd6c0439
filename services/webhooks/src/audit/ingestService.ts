import type { AuditEntryIn } from '@brand/proto/webhooks/v1/audit';
import { withTransaction, type Pool } from '@brand/shared/db';
import { AppError } from '@brand/shared/errors';
import { renderEntry, type RenderedEntry } from './entryJson';
import { insertAuditEntries } from './ingestRepo';

/** Entries one call may hand over (a relay's batch is 500). */
const MAX_ENTRIES_PER_CALL = 1_000;

/**
 * Stores a relay's batch in the trail (IngestAuditEntries, and the webhooks service's own
 * relay): every entry is read and rendered first, so a batch with one bad entry stores none
 * (validation_failed names it), and an entry given twice, here or before, is stored once.
 * Returns the brands that got new entries, with how many: their streams have work.
 */
export async function ingestAuditEntries(
  pool: Pool,
  entries: readonly AuditEntryIn[],
): Promise<Map<string, number>> {
  if (entries.length > MAX_ENTRIES_PER_CALL) {
    throw new AppError(
      'validation_failed',
      `entries: at most ${MAX_ENTRIES_PER_CALL} in one call (${entries.length} given).`,
    );
  }
  const rendered = new Map<string, RenderedEntry>();
  entries.forEach((entry, i) => {
    try {
      const r = renderEntry(entry);
      if (!rendered.has(r.id)) rendered.set(r.id, r);
    } catch (err) {
      if (err instanceof AppError) {
        throw new AppError('validation_failed', `entries[${i}]: ${err.message}`, {
          details: [{ field: `entries[${i}]`, message: err.message }],
        });
      }
      throw err;
    }
  });
  if (rendered.size === 0) return new Map();
  return withTransaction(pool, (db) => insertAuditEntries(db, [...rendered.values()]));
}
