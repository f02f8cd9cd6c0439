import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import { newId } from '@brand/shared/ids';
import { healthClass } from '../health/healthRepo';
import { latencySlot } from '../health/latencyHistogram';
import { recordReceiverActivity, SERVICE_AUDITOR } from '../receivers/receiverActivity';
import {
  alertFailingReceiver,
  disableReceiverByService,
  failPendingDeliveries,
  recordReceiverOutcome,
  TYPE_NOT_SELECTED,
} from '../receivers/receiverRepo';
import { failingAlertDue, type FailingAlertSettings } from './failingAlert';
import { finishAttempt, insertAttempt, type AttemptRecord } from './attemptRepo';
import type { ClaimedDelivery } from '../claim/claimRepo';
import type { Header } from '../send/responseBody';
import { nextAttemptAt } from './schedule';
import type { SendResult } from '../send/sender';
import type { GroupCommit } from '../db/groupCommit';

export interface OutcomeSettings {
  /** RETRY_TIME_SCALE */
  scale: number;
  /** RECEIVER_DISABLE_AFTER_MS: no 2xx for this long disables the receiver. */
  disableAfterMs: number;
  /** When a run of failures is worth one mail to the owners (failingAlert.ts). */
  failingAlert: FailingAlertSettings;
}

export type Verdict = 'succeeded' | 'retry' | 'failed' | 'receiver_disabled';

/**
 * Instead of failing a delivery whose counted failure spends its round: in the same transaction,
 * after the receiver's row (an audit stream's run of one entry refused 413 is set aside:
 * streamOutcome.ts). Returns the delivery's last error then, or `undefined` to fail it as usual.
 */
export type RoundSpent = (db: PoolClient) => Promise<string | undefined>;

/**
 * Stores one attempt's result in one transaction: the attempt row with its detail (the
 * request headers as sent, what came back) and its health count, the delivery's new state
 * (succeeded; pending with its next time; or failed after the last attempt), and the
 * receiver's last status, last delivery time, failure streak and last error. A 410 to a real
 * delivery disables the receiver, and so do `disableAfterMs` without a 2xx; a disabled receiver's pending
 * deliveries are failed visibly, and the notice its owners are mailed is written in the same
 * transaction. Test deliveries get one attempt and never count as failures (a 410 to one is
 * its result only: it disables nothing). A success, the
 * common case, goes to `successes`, which writes it with the others of its moment in one
 * statement (recordSucceededAttempts). Returns what happened, for logs.
 */
export function recordOutcome(
  { pool, successes }: { pool: Pool; successes: GroupCommit<AttemptRecord> },
  settings: OutcomeSettings,
  d: ClaimedDelivery,
  startedAt: Date,
  r: SendResult,
  requestHeaders: Header[],
  roundSpent?: RoundSpent,
): Promise<Verdict> {
  const attempt = attemptRecordOf(d, startedAt, r, requestHeaders);
  if (r.ok && r.status !== undefined) {
    return successes.add(attempt).then(() => 'succeeded' as const);
  }
  return recordFailure(pool, settings, d, attempt, r, roundSpent);
}

/** One attempt's result as it is recorded (the success path of an audit stream's run too). */
export function attemptRecordOf(
  d: Pick<ClaimedDelivery, 'id' | 'event_created_at' | 'receiver_id' | 'attempts' | 'test'>,
  startedAt: Date,
  r: SendResult,
  requestHeaders: Header[],
): AttemptRecord {
  return {
    deliveryId: d.id,
    eventAt: d.event_created_at,
    receiverId: d.receiver_id,
    number: d.attempts + 1,
    startedAt,
    durationMs: r.durationMs,
    statusCode: r.status ?? null,
    errorClass: r.ok ? null : (r.errorClass ?? null),
    errorMessage: r.ok ? null : (r.error ?? null),
    excerpt: r.excerpt ?? null,
    test: d.test,
    healthClass: healthClass(r) ?? null,
    latencySlot: r.status === undefined ? null : latencySlot(r.durationMs),
    requestHeaders,
    response: r.response,
  };
}

function recordFailure(
  pool: Pool,
  settings: OutcomeSettings,
  d: ClaimedDelivery,
  attempt: AttemptRecord,
  r: SendResult,
  roundSpent: RoundSpent | undefined,
): Promise<Verdict> {
  const now = new Date();
  return withTransaction(pool, async (db) => {
    // The receiver row first, then its health bucket (in insertAttempt): the one lock order
    // of every attempt's writes (attemptRepo.ts), or concurrent attempts to one receiver
    // deadlock on the two.
    const streak = await recordReceiverOutcome(db, d.receiver_id, {
      status: r.status ?? null,
      ok: r.ok,
      test: d.test,
      error: r.error ?? null,
      eventType: d.event_type,
    });
    // A delivery of a type its receiver no longer selects (stored by an ingest that read the
    // selection a moment before an owner narrowed it): failed with the reason, not retried, and
    // like a Test never counted against the receiver (it refuses types it does not select).
    const unselected = streak?.type_not_selected === true;
    const counts = !d.test && !unselected;
    await insertAttempt(db, attempt);
    const next =
      r.ok || !counts || r.status === 410
        ? undefined
        : nextAttemptAt({
            attemptInRound: attempt.number - d.round_start,
            status: r.status,
            timedOut: r.timedOut,
            retryAfter: r.retryAfter,
            scale: settings.scale,
            now,
          });
    const instead =
      !r.ok && counts && r.status !== 410 && !next && roundSpent ? await roundSpent(db) : undefined;
    await finishAttempt(db, {
      id: d.id,
      eventAt: d.event_created_at,
      attempts: attempt.number,
      status: r.ok ? 'succeeded' : next ? 'pending' : 'failed',
      nextAttemptAt: next,
      lastStatus: r.status ?? null,
      lastError: r.ok ? null : unselected ? TYPE_NOT_SELECTED : (instead ?? r.error ?? null),
    });
    // one mail to the owners when a run of failures crosses the threshold (never per attempt)
    if (!r.ok && counts && streak && failingAlertDue(streak, now, settings.failingAlert))
      await alertFailingReceiver(db, d.receiver_id, newId('receiverNotice'));
    // A Test never counts as a failure, a 410 included: its answer is the test's result only
    // and disables nothing (a review found a 410 to a Test disabling the receiver).
    let reason: string | undefined;
    if (r.status === 410 && counts)
      reason = `gone: the receiver answered 410 at ${now.toISOString()}`;
    else if (
      !r.ok &&
      counts &&
      streak?.failing_since &&
      now.getTime() - streak.failing_since.getTime() >= settings.disableAfterMs
    )
      reason = `no 2xx since ${streak.failing_since.toISOString()}`;
    if (reason) {
      const disabled = await disableReceiverByService(db, d.receiver_id, {
        reason,
        lastError: r.error ?? '',
        noticeId: newId('receiverNotice'),
      });
      if (disabled) {
        await recordReceiverActivity(
          db,
          SERVICE_AUDITOR,
          { id: d.receiver_id, brand_id: disabled.brand_id },
          'receiver.disabled',
          `${disabled.label}: disabled by the service (${reason}); the brand's owners are told by email`,
        );
      }
      await failPendingDeliveries(db, d.receiver_id, `receiver disabled (${reason})`);
      return 'receiver_disabled';
    }
    return r.ok ? 'succeeded' : next ? 'retry' : 'failed';
  });
}
