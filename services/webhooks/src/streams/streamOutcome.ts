import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import type { ClaimedDelivery } from '../claim/claimRepo';
import { ATTEMPTS_PER_ROUND } from '@brand/shared/webhooks';
import {
  finishAttempt,
  insertAttempt,
  recordSucceededAttempts,
  type AttemptRecord,
} from '../outcome/attemptRepo';
import {
  advanceAfterSuccess,
  lockCurrentRun,
  runLimits,
  setAsideRun,
  splitTooLargeRun,
  type QueuedBatch,
  type RunRange,
} from './batchRepo';
import { limitsAfterSuccess } from './runSize';

/** The positions a stream's run carries (its delivery's object_json). */
export const rangeOf = (objectJson: string): RunRange => JSON.parse(objectJson) as RunRange;

/**
 * A run of an audit stream answered 2xx: in ONE transaction, what every success writes (the
 * attempt, its health count, the stream's state, catch-up and the recovered notice:
 * recordSucceededAttempts) and the stream moved on past the run, with its next run opened when
 * entries wait: when its destination refused larger runs, no larger than twice the run's cap, and
 * halfway toward the fewest entries refused while the backlog drains (limitsAfterSuccess: the cap
 * grows back run by run, is dropped at `max`, and a limit that stays is not refused every other
 * run). The limits are read again in the transaction: an owner's disable, enable or new
 * destination drops them while the run waits. Not
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
    // a cap is only ever dropped from a run, never added: none claimed, none now
    const limits =
      rangeOf(objectJson).cap === undefined
        ? undefined
        : await runLimits(db, attempt.deliveryId, attempt.eventAt);
    return advanceAfterSuccess(
      db,
      attempt.receiverId,
      attempt.deliveryId,
      max,
      limits === undefined ? undefined : limitsAfterSuccess(limits),
    );
  });
}

/**
 * A run of two entries or more of an audit stream answered 413 (payload too large; a hostile
 * review, 2026-11-30: the same run was sent again on the retry schedule for ever, and everything
 * after it waited). In ONE transaction, the stream's row locked first (the engine's lock order):
 * the attempt recorded (its health count as any 4xx), the run failed with the reason, and its
 * entries queued again as a run of half its size, due now, its size remembered while the backlog
 * drains (splitTooLargeRun, from the limits the run carries now: runLimits), the stream's last
 * status and error saying so. Sending the halves is not a retry of the refused request, so it
 * waits for no schedule and adds nothing to the failure streak; a run of one entry refused 413
 * is an ordinary failure (setAsideWhenRoundSpent). `undefined` when the run is no longer the
 * stream's current one or the stream is disabled: the ordinary outcome then.
 */
export function recordStreamTooLarge(
  pool: Pool,
  attempt: AttemptRecord,
  objectJson: string,
): Promise<{ verdict: 'retry'; next: QueuedBatch } | undefined> {
  return withTransaction(pool, async (db) => {
    const stream = await lockCurrentRun(db, attempt.receiverId, attempt.deliveryId);
    if (!stream) return undefined;
    const range = rangeOf(objectJson);
    const entries = range.through - range.from + 1;
    const lastError = `413: the destination refused ${entries} entries (${range.from}-${range.through}) as too large; sent again in runs of at most ${Math.ceil(entries / 2)}`;
    await insertAttempt(db, attempt);
    const carried =
      range.cap === undefined
        ? undefined
        : await runLimits(db, attempt.deliveryId, attempt.eventAt);
    const next = await splitTooLargeRun(db, stream, range, carried, lastError);
    await finishAttempt(db, {
      id: attempt.deliveryId,
      eventAt: attempt.eventAt,
      attempts: attempt.number,
      status: 'failed',
      nextAttemptAt: undefined,
      lastStatus: 413,
      lastError,
    });
    return { verdict: 'retry', next };
  });
}

/**
 * What a run of ONE entry refused 413 does when the failure recorded spends its round of the
 * retry schedule (recordOutcome's roundSpent, in its transaction): where any other run starts a
 * new round, this entry is set aside (setAsideRun) and the stream goes on. Before that it was an
 * ordinary failure: retried on the schedule (a 413 that passes is simply retried), counted in the
 * failure streak (the owners had the failing mail by the fifth attempt), which the stream's next
 * 2xx clears. Returns the delivery's reason and the next run to claim at once, or `undefined`
 * when the run is no longer the stream's current one.
 */
export async function setAsideWhenRoundSpent(
  db: PoolClient,
  run: { id: string; receiverId: string; from: number },
  max: number,
): Promise<{ reason: string; next: QueuedBatch | undefined } | undefined> {
  const aside = await setAsideRun(db, run.receiverId, run.id, max);
  if (!aside) return undefined;
  return {
    reason: `413: the destination refused entry ${run.from} alone as too large on all ${ATTEMPTS_PER_ROUND} attempts of a round; set aside (still in the audit log; an owner may send it again once the destination takes it)`,
    next: aside.next,
  };
}

/** What a run whose entries are gone says (its delivery's last_error). */
function entriesGoneError(range: RunRange, wentOn: boolean): string {
  const one = range.from === range.through;
  const which = one ? `Entry ${range.from} is` : `Entries ${range.from}-${range.through} are`;
  const past = wentOn ? `, and the stream went on past ${one ? 'it' : 'them'}` : '';
  return `${which} no longer kept in the audit log (deleted before ${one ? 'it was' : 'they were'} sent); nothing was sent${past}.`;
}

/**
 * A run of an audit stream none of whose entries is still in the trail when its attempt comes
 * (streamRequest: `undefined`; a review of 08e46f07, the second defence beside the retention's
 * keeping what a pending run carries): nothing is sent, since an empty body answered 2xx was
 * recorded as the run delivered. Deleted entries never come back, so the run ends at once, no
 * attempt made (the destination was not asked; its health and failure streak are left alone):
 * in ONE transaction, the stream's row locked first (the engine's lock order), the stream's
 * current run moved past as a set-aside one is (setAsideRun; the next run opened, returned to
 * claim at once), and the delivery failed with why. A set-aside entry sent again, below where
 * the stream is, leaves the stream as it was, and is no longer set aside (setAside.ts: its entry
 * is gone). A disabled stream's current run stays where it is: enabled, its run starts again and
 * is ended so then.
 */
export function recordStreamEntriesGone(
  pool: Pool,
  run: Pick<ClaimedDelivery, 'id' | 'event_created_at' | 'receiver_id' | 'object_json'>,
  max: number,
): Promise<QueuedBatch | undefined> {
  return withTransaction(pool, async (db) => {
    await db.query(`select 1 from receivers where id = $1 for no key update`, [run.receiver_id]);
    const passed = await setAsideRun(db, run.receiver_id, run.id, max);
    await db.query(
      `update deliveries set status = 'failed', lease_until = null, completed_at = now(),
         last_error = $3
       where id = $1 and event_at = $2 and status = 'pending'`,
      [
        run.id,
        run.event_created_at,
        entriesGoneError(rangeOf(run.object_json), passed !== undefined),
      ],
    );
    return passed?.next;
  });
}
