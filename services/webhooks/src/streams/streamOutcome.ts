import { withTransaction, type Pool } from '@brand/shared/db';
import { recordSucceededAttempts, type AttemptRecord } from '../outcome/attemptRepo';
import { advanceAfterSuccess, type QueuedBatch } from './batchRepo';

/**
 * A run of an audit stream answered 2xx: in ONE transaction, what every success writes (the
 * attempt, its health count, the stream's state, catch-up and the recovered notice:
 * recordSucceededAttempts) and the stream moved on past the run, with its next run opened when
 * entries wait. Not batched with other successes (db/groupCommit.ts): the stream's next run must
 * not start before this one is recorded, and a stream has one run at a time anyway. Returns the
 * next run, for the worker to claim at once.
 */
export function recordStreamSuccess(
  pool: Pool,
  attempt: AttemptRecord,
  max: number,
): Promise<QueuedBatch | undefined> {
  return withTransaction(pool, async (db) => {
    await recordSucceededAttempts(db, [attempt]);
    return advanceAfterSuccess(db, attempt.receiverId, attempt.deliveryId, max);
  });
}
