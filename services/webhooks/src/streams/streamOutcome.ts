import { withTransaction, type Pool } from '@brand/shared/db';
import {
  finishAttempt,
  insertAttempt,
  recordSucceededAttempts,
  type AttemptRecord,
} from '../outcome/attemptRepo';
import {
  advanceAfterSuccess,
  lockCurrentRun,
  splitTooLargeRun,
  type QueuedBatch,
  type RunRange,
} from './batchRepo';

/** The positions a stream's run carries (its delivery's object_json). */
const rangeOf = (objectJson: string): RunRange => JSON.parse(objectJson) as RunRange;

/**
 * A run of an audit stream answered 2xx: in ONE transaction, what every success writes (the
 * attempt, its health count, the stream's state, catch-up and the recovered notice:
 * recordSucceededAttempts) and the stream moved on past the run, with its next run opened when
 * entries wait (no larger than the run's cap, when its destination refused larger ones). Not
 * batched with other successes (db/groupCommit.ts): the stream's next run must not start before
 * this one is recorded, and a stream has one run at a time anyway. Returns the next run, for the
 * worker to claim at once.
 */
export function recordStreamSuccess(
  pool: Pool,
  attempt: AttemptRecord,
  objectJson: string,
  max: number,
): Promise<QueuedBatch | undefined> {
  return withTransaction(pool, async (db) => {
    await recordSucceededAttempts(db, [attempt]);
    return advanceAfterSuccess(
      db,
      attempt.receiverId,
      attempt.deliveryId,
      max,
      rangeOf(objectJson).cap,
    );
  });
}

/**
 * A run of an audit stream answered 413 (payload too large; a hostile review, 2026-11-30: the
 * same run was sent again on the retry schedule for ever, and everything after it waited). In ONE
 * transaction, the stream's row locked first (the engine's lock order): the attempt recorded
 * (its health count as any 4xx), the run failed with the reason, and its entries queued again as
 * a run of half its size, due now (splitTooLargeRun), or, for one entry the destination refuses
 * alone, that entry set aside and the stream moved on. Sending the halves is not a retry of the
 * refused request, so the retry schedule and the failure streak (the failing notice, the disable
 * after days without a 2xx) are left to the runs' own answers. `undefined` when the run is no
 * longer the stream's current one or the stream is disabled: the ordinary outcome then.
 */
export function recordStreamTooLarge(
  pool: Pool,
  attempt: AttemptRecord,
  objectJson: string,
  max: number,
): Promise<{ verdict: 'retry' | 'failed'; next: QueuedBatch | undefined } | undefined> {
  return withTransaction(pool, async (db) => {
    const stream = await lockCurrentRun(db, attempt.receiverId, attempt.deliveryId);
    if (!stream) return undefined;
    const range = rangeOf(objectJson);
    await insertAttempt(db, attempt);
    const { next, setAside } = await splitTooLargeRun(db, stream, range, max);
    const entries = range.through - range.from + 1;
    await finishAttempt(db, {
      id: attempt.deliveryId,
      eventAt: attempt.eventAt,
      attempts: attempt.number,
      status: 'failed',
      nextAttemptAt: undefined,
      lastStatus: 413,
      lastError: setAside
        ? `413: the destination refuses entry ${range.from} alone as too large; set aside (not sent again, still in the audit log)`
        : `413: the destination refused ${entries} entries (${range.from}-${range.through}) as too large; sent again in runs of at most ${Math.ceil(entries / 2)}`,
    });
    return { verdict: setAside ? 'failed' : 'retry', next };
  });
}
