import { z } from 'zod';
import type { Auditor } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { RECOVERY_MAX_AGE_MS } from '@brand/shared/webhooks';
import { fieldError, parseTimestamp, toSecond } from '../requestFields';
import { recordReceiverActivity } from '../receivers/receiverActivity';
import { getReceiver } from '../receivers/receiverService';
import { lockReceiver } from '../receivers/rotationRepo';
import {
  claimRecovery,
  countUndeliveredSince,
  makeWaitingDueNow,
  requeueUndeliveredSince,
  selectRecovery,
  storeRecoveryResult,
} from './recoveryRepo';

/** A `since` this much older than the bound is still taken: the page computed it a moment ago. */
const SINCE_GRACE_MS = 5 * 60_000;

const receiverId = z.string().regex(/^rcv_[A-Za-z0-9]{1,64}$/, 'must be a receiver id (rcv_...)');

export interface RecoveryDeps {
  pool: Pool;
  /** RECOVERY_MAX_PER_REQUEST: deliveries one request re-queues at most (10,000). */
  recoveryMaxPerRequest: number;
}

/** `since` as a time inside the window: at most 14 days back, not in the future. */
function windowStart(since: string, now: Date): Date {
  const at = parseTimestamp(since, 'since');
  if (at.getTime() < now.getTime() - RECOVERY_MAX_AGE_MS - SINCE_GRACE_MS) {
    throw fieldError('since', `must be at most 14 days back (${toSecond(earliest(now))} or later)`);
  }
  if (at.getTime() > now.getTime()) throw fieldError('since', 'must not be in the future');
  return at;
}

const earliest = (now: Date): Date => new Date(now.getTime() - RECOVERY_MAX_AGE_MS);

/**
 * What RecoverDeliveries would do now, changing nothing: the receiver's deliveries since
 * `since` not yet delivered, failed and waiting (for their next retry, or due).
 */
export async function previewRecovery(
  deps: RecoveryDeps,
  input: { receiverId: string; since: string },
): Promise<{
  failed: number;
  waiting: number;
  wouldRequeue: number;
  earliestSince: string;
  maxPerRequest: number;
}> {
  const v = parseOrThrow(z.object({ receiverId, since: z.string() }), input);
  const now = new Date();
  const since = windowStart(v.since, now);
  await getReceiver(deps, v.receiverId);
  const { failed, waiting } = await countUndeliveredSince(deps.pool, v.receiverId, since);
  return {
    failed,
    waiting,
    wouldRequeue: Math.min(failed + waiting, deps.recoveryMaxPerRequest),
    earliestSince: toSecond(earliest(now)),
    maxPerRequest: deps.recoveryMaxPerRequest,
  };
}

const RecoverInput = z.object({
  receiverId,
  since: z.string(),
  requestId: z.uuid({ message: 'must be a UUID, new for each recovery' }),
});

/** What one recovery did: failed deliveries re-queued, waiting ones made due now. */
export interface RecoveryResult {
  /** requeuedFailed + madeDue. */
  requeued: number;
  requeuedFailed: number;
  madeDue: number;
  /** Not yet delivered in the window beyond the per-request bound. */
  remaining: number;
  replayed: boolean;
}

/**
 * Catches a receiver up after an outage: everything created since `since` that has not been
 * delivered (test deliveries excluded; at most RECOVERY_MAX_PER_REQUEST, oldest first) is
 * due now: failed deliveries as a new round of attempts of the same event, deliveries waiting
 * for their next retry in their round. Idempotent by request_id: a repeated request (a double click, a retry)
 * answers the first result with `replayed` and re-queues nothing more; the same id for
 * another receiver or time is request_conflict. receiver_disabled for a disabled receiver.
 */
export async function recoverDeliveries(
  deps: RecoveryDeps,
  input: z.input<typeof RecoverInput>,
  audit: Auditor,
): Promise<RecoveryResult> {
  const v = parseOrThrow(RecoverInput, input);
  const since = windowStart(v.since, new Date());
  return withTransaction(deps.pool, async (db) => {
    // one recovery of a receiver at a time; a twin of this request waits for it here
    const r = await lockReceiver(db, v.receiverId);
    if (!r) throw new AppError('not_found', `No receiver ${v.receiverId}.`);
    if (!(await claimRecovery(db, v.requestId, r.id, since))) {
      const first = await selectRecovery(db, v.requestId);
      if (first?.receiver_id !== r.id || first.since.getTime() !== since.getTime()) {
        throw new AppError(
          'request_conflict',
          'request_id was already used for another recovery; send a new UUID for each recovery.',
        );
      }
      return {
        requeued: first.requeued,
        requeuedFailed: first.requeued_failed,
        madeDue: first.made_due,
        remaining: first.remaining,
        replayed: true,
      };
    }
    if (!r.enabled) {
      throw new AppError(
        'receiver_disabled',
        `Receiver ${r.id} is disabled: enable it before recovering its deliveries, or they would fail again at once.`,
      );
    }
    const done = await requeueUndeliveredSince(db, r.id, since, deps.recoveryMaxPerRequest);
    // what is left beyond the bound: everything still undelivered and not due now
    const after = await countUndeliveredSince(db, r.id, since);
    const remaining = Math.max(
      0,
      after.failed + after.waiting - done.madeDue - done.requeuedFailed,
    );
    await storeRecoveryResult(db, v.requestId, { ...done, remaining });
    const left = remaining > 0 ? `; ${remaining} left beyond the per-request bound` : '';
    await recordReceiverActivity(
      db,
      audit,
      r,
      'deliveries.recovered',
      `${r.label}: since ${toSecond(since)}, ${done.requeuedFailed} failed deliveries re-queued and ${done.madeDue} waiting ones due now${left}`,
    );
    return {
      requeued: done.requeuedFailed + done.madeDue,
      ...done,
      remaining,
      replayed: false,
    };
  });
}

/**
 * "Retry all waiting": every delivery of the receiver waiting for its next retry is due now,
 * oldest first, at most RECOVERY_MAX_PER_REQUEST, each in its round (the attempt made spends one
 * of the round's ten, as Retry now does for one delivery). Failed deliveries are RecoverDeliveries'
 * work and stay as they are. receiver_disabled for a disabled receiver (its pending deliveries
 * were failed when it was disabled). A repeat changes nothing more until attempts were made:
 * no request id is needed.
 */
export async function retryWaitingDeliveries(
  deps: RecoveryDeps,
  input: { receiverId: string },
  audit: Auditor,
): Promise<{ madeDue: number; remaining: number }> {
  const v = parseOrThrow(z.object({ receiverId }), input);
  return withTransaction(deps.pool, async (db) => {
    // under the receiver's lock, as a recovery: a concurrent disable or recovery waits
    const r = await lockReceiver(db, v.receiverId);
    if (!r) throw new AppError('not_found', `No receiver ${v.receiverId}.`);
    if (!r.enabled) {
      throw new AppError(
        'receiver_disabled',
        `Receiver ${r.id} is disabled: nothing of it waits (its pending deliveries failed when it was disabled). Enable it, then recover its deliveries.`,
      );
    }
    const done = await makeWaitingDueNow(db, r.id, deps.recoveryMaxPerRequest);
    if (done.madeDue > 0) {
      const left = done.remaining > 0 ? `; ${done.remaining} still waiting` : '';
      await recordReceiverActivity(
        db,
        audit,
        r,
        'deliveries.retried',
        `${r.label}: ${done.madeDue} waiting ${done.madeDue === 1 ? 'delivery' : 'deliveries'} due now, each spending one attempt of its round${left}`,
      );
    }
    return done;
  });
}
