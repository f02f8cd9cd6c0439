import { z } from 'zod';
import { insertActivity, type Auditor } from '@brand/shared/activity';
import { withTransaction, type Pool, type PoolClient } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { insertEventOnce } from '../ingest/eventRepo';
import { getReceiver } from '../receivers/receiverService';
import { setRotationTest } from '../receivers/rotationRepo';
import { lockForRotation } from '../receivers/rotationService';
import {
  countPendingTests,
  insertTestDelivery,
  lockReceiverForTest,
  makeDueNow,
  requeueDelivery,
  selectAttemptDetails,
  selectAttempts,
  selectDelivery,
  type AttemptDetailRow,
  type AttemptRow,
  type DeliveryRow,
} from './deliveryRepo';
import { deliveryLogQuery, readDeliveryLogPage, type DeliveryLogInput } from './deliveryLog';
import { readSnapshot } from './snapshotRead';
import { sampleObject } from './sampleData';
import { deliveryBody } from '../send/sign';

const deliveryId = z.string().regex(/^dlv_[A-Za-z0-9]{1,64}$/, 'must be a delivery id (dlv_...)');

export interface DeliveryView extends DeliveryRow {
  attempt_log: AttemptRow[];
  /** One delivery only (GetDelivery): the retained detail of its attempts. */
  details?: AttemptDetailRow[];
  /** One delivery only: the exact event JSON sent. */
  payload?: string;
}

/** Deliveries with their attempts, oldest first (the log's and the Events page's form). */
export async function withAttempts<R extends DeliveryRow>(
  db: Pool | PoolClient,
  rows: R[],
): Promise<Array<R & DeliveryView>> {
  const attempts = await selectAttempts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, attempt_log: attempts.filter((a) => a.delivery_id === r.id) }));
}

/**
 * Loads one delivery with its attempts, their retained detail and the exact body sent
 * (rebuilt from the stored event: the same bytes on every attempt), or throws not_found.
 * The three are read as of one moment (readSnapshot): the worker writes an attempt, its detail
 * and the delivery's state together, so the view never has one without the others.
 */
export async function getDelivery(pool: Pool, id: string): Promise<DeliveryView> {
  parseOrThrow(z.object({ deliveryId }), { deliveryId: id });
  const { row, attempts, details } = await readSnapshot(pool, async (db) => {
    const row = await selectDelivery(db, id);
    if (!row) throw new AppError('not_found', `No delivery ${id}.`);
    return {
      row,
      attempts: await selectAttempts(db, [id]),
      details: await selectAttemptDetails(db, id),
    };
  });
  const { event_created_at, object_json, ...delivery } = row;
  const payload = deliveryBody({
    id: row.event_id,
    type: row.event_type,
    createdAt: event_created_at,
    test: row.test,
    brandId: row.brand_id,
    objectJson: object_json,
  });
  return { ...delivery, attempt_log: attempts, details, payload };
}

/**
 * How many Tests may wait per receiver (or audit stream). Each Test stores an event, a delivery
 * and an activity entry, so without a bound a script with an owner's session could grow
 * storage, the brand's activity log and the workers' queue without limit (hostile review,
 * 2026-12-01). Ten leaves room for what people do: a Test of each of the four event types back to
 * back, twice over, and a rotation's Test with the new secret; one at a time refused that.
 */
const PENDING_TESTS_PER_RECEIVER = 10;

/**
 * precondition_failed when `PENDING_TESTS_PER_RECEIVER` Tests of the receiver (or stream) are
 * pending, queued or their one attempt in flight, naming the oldest. A Test is attempted once,
 * never retried, so each ends at its first attempt. Call it in the Test's transaction after
 * locking the receiver's row (lockReceiverForTest or lockForRotation): Tests at once then take
 * turns, and each counts the ones before it.
 */
export async function boundedPendingTests(db: PoolClient, receiverId: string, what: string) {
  const cap = PENDING_TESTS_PER_RECEIVER;
  const pending = await countPendingTests(db, receiverId, cap);
  if (pending.count < cap || !pending.oldest) return;
  throw new AppError(
    'precondition_failed',
    `${what} already has ${cap} Tests waiting (the oldest ${pending.oldest.id}, queued at ${pending.oldest.queued_at}); at most ${cap} wait at once. ` +
      'Each is attempted once and its outcome shows in the delivery log: test again once one has its outcome.',
  );
}

/**
 * The Test action: stores a test event (`"test": true`, sample data of one of the
 * receiver's own types; no business event is created) and queues one delivery of it to
 * this receiver only. With `withNewSecret` it is signed with the pending rotation's new
 * secret (no_rotation when none is pending) and shown with the rotation. Refused while ten
 * Tests of the receiver wait (boundedPendingTests). Returns the queued delivery: queued is not
 * delivered.
 */
export async function testReceiver(
  deps: { pool: Pool },
  input: { receiverId: string; type: EventTypeName | undefined; withNewSecret: boolean },
  audit: Auditor,
): Promise<DeliveryView> {
  const receiver = await getReceiver(deps, input.receiverId);
  if (!receiver.enabled)
    throw new AppError(
      'precondition_failed',
      `Receiver ${receiver.id} is disabled; enable it first.`,
    );
  const type = input.type ?? receiver.events[0]!;
  if (!receiver.events.includes(type)) {
    const message = `must be one of the receiver's own types (${receiver.events.join(', ')})`;
    throw new AppError('validation_failed', `event_type: ${message}`, {
      details: [{ field: 'event_type', message }],
    });
  }
  const eventId = newId('event');
  const deliveryId = newId('delivery');
  const createdAt = new Date().toISOString();
  await withTransaction(deps.pool, async (db) => {
    let secretVersion: number | null = null;
    if (input.withNewSecret) {
      const locked = await lockForRotation(db, receiver.id);
      if (!locked.pending) {
        throw new AppError(
          'no_rotation',
          `Receiver ${receiver.id} has no secret rotation pending: there is no new secret to test.`,
        );
      }
      secretVersion = locked.secret_version + 1;
    } else if (!(await lockReceiverForTest(db, receiver.id))) {
      throw new AppError('not_found', `No receiver ${receiver.id}.`);
    }
    await boundedPendingTests(db, receiver.id, `Receiver "${receiver.label}"`);
    await insertEventOnce(db, {
      id: eventId,
      brandId: receiver.brand_id,
      type,
      createdAt,
      objectJson: JSON.stringify(sampleObject(type)),
      test: true,
      producer: 'webhooks-test-action',
    });
    await insertTestDelivery(db, {
      id: deliveryId,
      eventId,
      eventAt: createdAt,
      eventType: type,
      receiverId: receiver.id,
      brandId: receiver.brand_id,
      secretVersion,
    });
    if (secretVersion !== null) await setRotationTest(db, receiver.id, deliveryId);
    const signed = secretVersion === null ? '' : ' signed with the new secret';
    await insertActivity(db, {
      brandId: receiver.brand_id,
      action: 'receiver.tested',
      actorMemberId: audit.memberId,
      actorEmail: audit.email,
      subjectId: receiver.id,
      summary: `${receiver.label}: test ${type}${signed} queued (${deliveryId})`,
    });
  });
  return getDelivery(deps.pool, deliveryId);
}

/**
 * One page of the delivery log of a receiver or a brand (deliveryLog.ts: filters, cursor,
 * bounded work), each delivery with its attempts, and the next page's cursor ('' at the end).
 * The page and its attempts are read as of one moment, as getDelivery's are.
 */
export async function listDeliveries(
  deps: { pool: Pool },
  input: DeliveryLogInput,
): Promise<{ deliveries: DeliveryView[]; nextCursor: string }> {
  const query = await deliveryLogQuery(deps, input);
  return readSnapshot(deps.pool, async (db) => {
    const page = await readDeliveryLogPage(db, query);
    return { deliveries: await withAttempts(db, page.rows), nextCursor: page.nextCursor };
  });
}

/**
 * A change to one delivery from the Developers area: loads it and its receiver, refuses a
 * disabled receiver with `disabled`, then in one transaction applies `change` (false: the
 * delivery is not in a state for it, refused with `refused`) and writes the activity entry.
 * Returns the delivery as it stands after.
 */
async function changeDelivery(
  deps: { pool: Pool },
  id: string,
  audit: Auditor,
  how: {
    disabled: (receiverId: string) => AppError;
    change: (db: PoolClient, id: string) => Promise<boolean>;
    refused: (d: DeliveryView) => AppError;
    action: string;
    summary: (d: DeliveryView, receiverLabel: string) => string;
  },
): Promise<DeliveryView> {
  const v = parseOrThrow(z.object({ deliveryId }), { deliveryId: id });
  const delivery = await getDelivery(deps.pool, v.deliveryId);
  const receiver = await getReceiver(deps, delivery.receiver_id);
  if (!receiver.enabled) throw how.disabled(receiver.id);
  await withTransaction(deps.pool, async (db) => {
    if (!(await how.change(db, v.deliveryId))) throw how.refused(delivery);
    await insertActivity(db, {
      brandId: delivery.brand_id,
      action: how.action,
      actorMemberId: audit.memberId,
      actorEmail: audit.email,
      subjectId: delivery.id,
      summary: how.summary(delivery, receiver.label),
    });
  });
  return getDelivery(deps.pool, v.deliveryId);
}

/**
 * Queues a finished delivery again with a fresh round of retries (same event id).
 * precondition_failed when it is queued already, when its receiver no longer selects its event
 * type (the receiver would refuse it, and the refusal would count against it), or when its
 * event is past the history retention (its week is about to be dropped: resending it would be
 * lost with it).
 */
export function resendDelivery(
  deps: { pool: Pool; historyRetentionMs: number },
  input: { deliveryId: string },
  audit: Auditor,
): Promise<DeliveryView> {
  let outcome: Awaited<ReturnType<typeof requeueDelivery>> = 'queued';
  return changeDelivery(deps, input.deliveryId, audit, {
    disabled: (id) =>
      new AppError('precondition_failed', `Receiver ${id} is disabled; enable it first.`),
    change: async (db, id) => {
      outcome = await requeueDelivery(db, id, deps.historyRetentionMs);
      return outcome === 'queued';
    },
    refused: (d) =>
      new AppError(
        'precondition_failed',
        outcome === 'past_retention'
          ? `Delivery ${d.id} is of an event older than the delivery history is kept (${Math.floor(deps.historyRetentionMs / 86_400_000)} days): it cannot be sent again.`
          : outcome === 'type_not_selected'
            ? `Delivery ${d.id} cannot be sent again: its receiver no longer selects ${d.event_type}. Select the type again to resend it.`
            : `Delivery ${d.id} is already queued.`,
      ),
    action: 'delivery.resent',
    summary: (d, label) => `${d.event_type} to ${label}`,
  });
}

/**
 * "Retry now": a delivery waiting for its next attempt gets it at once, in the same round
 * (the retry schedule continues after it). receiver_disabled when its receiver is
 * disabled; precondition_failed when it is not waiting (finished: use resend; or an
 * attempt is in flight).
 */
export function retryDelivery(
  deps: { pool: Pool },
  input: { deliveryId: string },
  audit: Auditor,
): Promise<DeliveryView> {
  return changeDelivery(deps, input.deliveryId, audit, {
    disabled: (id) =>
      new AppError('receiver_disabled', `Receiver ${id} is disabled; enable it first.`),
    change: makeDueNow,
    refused: (d) =>
      new AppError(
        'precondition_failed',
        d.status === 'pending'
          ? `Delivery ${d.id} is being attempted right now.`
          : `Delivery ${d.id} is not waiting for a retry (it ${d.status}); resend it instead.`,
      ),
    action: 'delivery.retried',
    summary: (d, label) => `${d.event_type} to ${label}: next attempt now`,
  });
}
