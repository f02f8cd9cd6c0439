import { z } from 'zod';
import { insertActivity, type Auditor } from '@brand/shared/activity';
import { withTransaction, type Pool } from '@brand/shared/db';
import type { EventTypeName } from '@brand/shared/enums';
import { AppError, parseOrThrow } from '@brand/shared/errors';
import { newId } from '@brand/shared/ids';
import { insertEventOnce } from '../events/eventRepo';
import { getReceiver } from '../receivers/receiverService';
import {
  insertDelivery,
  requeueDelivery,
  selectAttempts,
  selectDeliveries,
  selectDelivery,
  type AttemptRow,
  type DeliveryRow,
} from './deliveryRepo';
import { sampleObject } from './sampleData';

const deliveryId = z.string().regex(/^dlv_[A-Za-z0-9]{1,64}$/, 'must be a delivery id (dlv_...)');

export interface DeliveryView extends DeliveryRow {
  attempt_log: AttemptRow[];
}

async function withAttempts(pool: Pool, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = await selectAttempts(
    pool,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, attempt_log: attempts.filter((a) => a.delivery_id === r.id) }));
}

/** Loads one delivery with its attempts, or throws not_found. */
export async function getDelivery(pool: Pool, id: string): Promise<DeliveryView> {
  parseOrThrow(z.object({ deliveryId }), { deliveryId: id });
  const row = await selectDelivery(pool, id);
  if (!row) throw new AppError('not_found', `No delivery ${id}.`);
  return (await withAttempts(pool, [row]))[0]!;
}

/**
 * The Test action: stores a test event (`"test": true`, sample data of one of the
 * receiver's own types; no business event is created) and queues one delivery of it to
 * this receiver only. Returns the queued delivery: queued is not delivered.
 */
export async function testReceiver(
  deps: { pool: Pool },
  input: { receiverId: string; type: EventTypeName | undefined },
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
  await withTransaction(deps.pool, async (db) => {
    await insertEventOnce(db, {
      id: eventId,
      brandId: receiver.brand_id,
      type,
      createdAt: new Date().toISOString(),
      objectJson: JSON.stringify(sampleObject(type)),
      test: true,
      producer: 'webhooks-test-action',
    });
    await insertDelivery(db, {
      id: deliveryId,
      eventId,
      receiverId: receiver.id,
      brandId: receiver.brand_id,
    });
    await insertActivity(db, {
      brandId: receiver.brand_id,
      action: 'receiver.tested',
      actorMemberId: audit.memberId,
      actorEmail: audit.email,
      subjectId: receiver.id,
      summary: `${receiver.label}: test ${type} queued (${deliveryId})`,
    });
  });
  return getDelivery(deps.pool, deliveryId);
}

const ListInput = z
  .object({
    receiverId: z
      .string()
      .regex(/^rcv_[A-Za-z0-9]{1,64}$/, 'must be a receiver id (rcv_...)')
      .optional(),
    brandId: z
      .string()
      .regex(/^br_[A-Za-z0-9]{1,64}$/, 'must be a brand id (br_...)')
      .optional(),
    limit: z.number().int().min(1, 'must be 1..200').max(200, 'must be 1..200'),
  })
  .refine((v) => (v.receiverId === undefined) !== (v.brandId === undefined), {
    message: 'name exactly one of receiver_id and brand_id',
    path: ['receiver_id'],
  });

/** Deliveries of one receiver or one brand, newest first, each with its attempts. */
export async function listDeliveries(
  deps: { pool: Pool },
  input: z.input<typeof ListInput>,
): Promise<DeliveryView[]> {
  const v = parseOrThrow(ListInput, input);
  if (v.receiverId) await getReceiver(deps, v.receiverId);
  return withAttempts(deps.pool, await selectDeliveries(deps.pool, v));
}

/** Queues a finished delivery again with a fresh round of retries (same event id). */
export async function resendDelivery(
  deps: { pool: Pool },
  input: { deliveryId: string },
  audit: Auditor,
): Promise<DeliveryView> {
  const v = parseOrThrow(z.object({ deliveryId }), input);
  const delivery = await getDelivery(deps.pool, v.deliveryId);
  const receiver = await getReceiver(deps, delivery.receiver_id);
  if (!receiver.enabled)
    throw new AppError(
      'precondition_failed',
      `Receiver ${receiver.id} is disabled; enable it first.`,
    );
  await withTransaction(deps.pool, async (db) => {
    if (!(await requeueDelivery(db, v.deliveryId)))
      throw new AppError('precondition_failed', `Delivery ${v.deliveryId} is already queued.`);
    await insertActivity(db, {
      brandId: delivery.brand_id,
      action: 'delivery.resent',
      actorMemberId: audit.memberId,
      actorEmail: audit.email,
      subjectId: delivery.id,
      summary: `${delivery.event_type} to ${receiver.label}`,
    });
  });
  return getDelivery(deps.pool, v.deliveryId);
}
