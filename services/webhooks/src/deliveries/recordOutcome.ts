import { withTransaction, type Pool } from '@brand/shared/db';
import {
  disableReceiver,
  failPendingDeliveries,
  recordReceiverOutcome,
} from '../receivers/receiverRepo';
import {
  finishAttempt,
  insertAttempt,
  recordSucceededAttempt,
  type ClaimedDelivery,
} from './deliveryRepo';
import { nextAttemptAt } from './schedule';
import type { SendResult } from './sender';

export interface OutcomeSettings {
  /** RETRY_TIME_SCALE */
  scale: number;
  /** RECEIVER_DISABLE_AFTER_MS: no 2xx for this long disables the receiver. */
  disableAfterMs: number;
}

export type Verdict = 'succeeded' | 'retry' | 'failed' | 'receiver_disabled';

/**
 * Stores one attempt's result in one transaction: the attempt row, the delivery's new
 * state (succeeded; pending with its next time; or failed after the last attempt), and the
 * receiver's last status, last delivery time and failure streak. A 410 disables the
 * receiver, and so do `disableAfterMs` without a 2xx; a disabled receiver's pending
 * deliveries are failed visibly. Test deliveries get one attempt and never count as
 * failures. A success, the common case, is one statement (recordSucceededAttempt).
 * Returns what happened, for logs.
 */
export function recordOutcome(
  pool: Pool,
  settings: OutcomeSettings,
  d: ClaimedDelivery,
  startedAt: Date,
  r: SendResult,
): Promise<Verdict> {
  const attempt = d.attempts + 1;
  if (r.ok && r.status !== undefined) {
    return recordSucceededAttempt(pool, {
      deliveryId: d.id,
      receiverId: d.receiver_id,
      number: attempt,
      startedAt,
      durationMs: r.durationMs,
      statusCode: r.status,
      excerpt: r.excerpt ?? null,
      test: d.test,
    }).then(() => 'succeeded' as const);
  }
  const now = new Date();
  return withTransaction(pool, async (db) => {
    await insertAttempt(db, {
      deliveryId: d.id,
      number: attempt,
      startedAt,
      durationMs: r.durationMs,
      statusCode: r.status ?? null,
      errorClass: r.errorClass ?? null,
      excerpt: r.excerpt ?? null,
    });
    const next =
      r.ok || d.test || r.status === 410
        ? undefined
        : nextAttemptAt({
            attemptInRound: attempt - d.round_start,
            status: r.status,
            timedOut: r.timedOut,
            retryAfter: r.retryAfter,
            scale: settings.scale,
            now,
          });
    await finishAttempt(db, {
      id: d.id,
      attempts: attempt,
      status: r.ok ? 'succeeded' : next ? 'pending' : 'failed',
      nextAttemptAt: next,
      lastStatus: r.status ?? null,
      lastError: r.ok ? null : (r.error ?? null),
    });
    const streak = await recordReceiverOutcome(db, d.receiver_id, {
      status: r.status ?? null,
      ok: r.ok,
      test: d.test,
    });
    let disabled: string | undefined;
    if (r.status === 410) disabled = `gone: the receiver answered 410 at ${now.toISOString()}`;
    else if (
      !r.ok &&
      !d.test &&
      streak?.failing_since &&
      now.getTime() - streak.failing_since.getTime() >= settings.disableAfterMs
    )
      disabled = `no 2xx since ${streak.failing_since.toISOString()}`;
    if (disabled) {
      await disableReceiver(db, d.receiver_id, disabled);
      await failPendingDeliveries(db, d.receiver_id, `receiver disabled (${disabled})`);
      return 'receiver_disabled';
    }
    return r.ok ? 'succeeded' : next ? 'retry' : 'failed';
  });
}
