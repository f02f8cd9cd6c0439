import type { Pool } from '@brand/shared/db';
import { getReceiver } from '../receivers/receiverService';
import { selectHealthRows } from './healthRepo';
import { healthFrom, healthWindows, type HealthWindowView } from './healthWindows';

/**
 * A receiver's health over the last hour, 24 hours and 7 days (per attempt, test deliveries
 * excluded), from its 5-minute rollup: one primary-key range read of at most 2,016 rows,
 * whatever the delivery tables hold. not_found for an unknown receiver.
 */
export async function getReceiverHealth(
  deps: { pool: Pool },
  input: { receiverId: string },
  now = new Date(),
): Promise<HealthWindowView[]> {
  const receiver = await getReceiver(deps, input.receiverId);
  const nowSec = Math.floor(now.getTime() / 1000);
  const rows = await selectHealthRows(deps.pool, receiver.id, healthFrom(nowSec));
  return healthWindows(rows, nowSec);
}
