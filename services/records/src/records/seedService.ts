import { AppError } from '@brand/shared/errors';
import { withTransaction, type Pool } from '@brand/shared/db';
import { buildDemoData } from './demoData';
import { analyzeRecordTables, insertRecords } from './recordWriter';

const MAX_SCALE = 50;

/**
 * Fills a brand with demo records across the six resources in one transaction, so a
 * failed seed leaves nothing behind, then refreshes the planner statistics of what it filled.
 * Returns the number created per resource.
 * not_found for an unknown brand; validation_failed for a scale outside 1..50.
 */
export async function seedDemoData(
  pool: Pool,
  brandId: string,
  scale: number,
): Promise<Record<string, number>> {
  if (!Number.isInteger(scale) || scale < 1 || scale > MAX_SCALE) {
    throw new AppError('validation_failed', `scale must be an integer from 1 to ${MAX_SCALE}.`, {
      details: [{ field: 'scale', message: `must be from 1 to ${MAX_SCALE}` }],
    });
  }
  const created = await withTransaction(pool, async (client) => {
    const brand = await client.query('select 1 from brands where id = $1', [brandId]);
    if (brand.rowCount === 0) throw new AppError('not_found', `No brand ${brandId}.`);
    const counts: Record<string, number> = {};
    for (const [resource, rows] of buildDemoData(scale)) {
      await insertRecords(client, brandId, resource, rows);
      counts[resource] = rows.length;
    }
    return counts;
  });
  await analyzeRecordTables(pool);
  return created;
}
