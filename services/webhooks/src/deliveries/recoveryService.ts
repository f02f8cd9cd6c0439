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
  countFailedSince,
  requeueFailedSince,
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

/** What RecoverDeliveries would re-queue now, changing nothing. */
export async function previewRecovery(
  deps: RecoveryDeps,
  input: { receiverId: string; since: string },
): Promise<{ failed: number; wouldRequeue: number; earliestSince: string; maxPerRequest: number }> {
  const v = parseOrThrow(z.object({ receiverId, since: z.string() }), input);
  const now = new Date();
  const since = windowStart(v.since, now);
  await getReceiver(deps, v.receiverId);
  const failed = await countFailedSince(deps.pool, v.receiverId, since);
  return {
    failed,
    wouldRequeue: Math.min(failed, deps.recoveryMaxPerRequest),
    earliestSince: toSecond(earliest(now)),
    maxPerRequest: deps.recoveryMaxPerRequest,
  };
}

const RecoverInput = z.object({
  receiverId,
  since: z.string(),
  requestId: z.uuid({ message: 'must be a UUID, new for each recovery' }),
});

/**
 * Re-queues the receiver's failed deliveries created since `since` (test deliveries
 * excluded; at most RECOVERY_MAX_PER_REQUEST, oldest first), each as a new attempt of the
 * same event. Idempotent by request_id: a repeated request (a double click, a retry)
 * answers the first result with `replayed` and re-queues nothing more; the same id for
 * another receiver or time is request_conflict. receiver_disabled for a disabled receiver.
 */
export async function recoverDeliveries(
  deps: RecoveryDeps,
  input: z.input<typeof RecoverInput>,
  audit: Auditor,
): Promise<{ requeued: number; remaining: number; replayed: boolean }> {
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
      return { requeued: first.requeued, remaining: first.remaining, replayed: true };
    }
    if (!r.enabled) {
      throw new AppError(
        'receiver_disabled',
        `Receiver ${r.id} is disabled: enable it before recovering its deliveries, or they would fail again at once.`,
      );
    }
    const requeued = await requeueFailedSince(db, r.id, since, deps.recoveryMaxPerRequest);
    const remaining = await countFailedSince(db, r.id, since);
    await storeRecoveryResult(db, v.requestId, { requeued, remaining });
    const left = remaining > 0 ? `; ${remaining} left beyond the per-request bound` : '';
    await recordReceiverActivity(
      db,
      audit,
      r,
      'deliveries.recovered',
      `${r.label}: ${requeued} failed deliveries since ${toSecond(since)} re-queued${left}`,
    );
    return { requeued, remaining, replayed: false };
  });
}
