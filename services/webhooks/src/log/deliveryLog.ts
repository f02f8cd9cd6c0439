import { z } from 'zod';
import {
  decodeKeysetCursor,
  encodeKeysetCursor,
  type Pool,
  type PoolClient,
} from '@brand/shared/db';
import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import { parseOrThrow } from '@brand/shared/errors';
import { fieldError, parseTimestamp } from '../requestFields';
import { getReceiver } from '../receivers/receiverService';
import type { DeliveryStatusName } from '../claim/claimRepo';
import { selectDeliveryLog, type DeliveryLogQuery } from './deliveryRepo';

const DELIVERY_ID = /^dlv_[A-Za-z0-9]{1,64}$/;

const LogInput = z
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
    cursor: z.string().optional(),
    status: z.enum(['pending', 'succeeded', 'failed']).optional(),
    eventType: z.enum(EVENT_TYPES.names).optional(),
    since: z.string().optional(),
    until: z.string().optional(),
    eventId: z
      .string()
      .regex(/^evt_[A-Za-z0-9]{1,64}$/, 'must be an event id (evt_...)')
      .optional(),
    recordId: z
      .string()
      .regex(/^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/, 'must be a record id such as sub_... or po_...')
      .optional(),
  })
  .refine((v) => (v.receiverId === undefined) !== (v.brandId === undefined), {
    message: 'name exactly one of receiver_id and brand_id',
    path: ['receiver_id'],
  });

export type DeliveryLogInput = z.input<typeof LogInput> & {
  status?: DeliveryStatusName;
  eventType?: EventTypeName;
};

/**
 * What one page of a receiver's or a brand's delivery log asks for, validated: not_found for
 * an unknown receiver; validation_failed for a bad limit, id, time, range or cursor.
 */
export async function deliveryLogQuery(
  deps: { pool: Pool },
  input: DeliveryLogInput,
): Promise<DeliveryLogQuery> {
  const v = parseOrThrow(LogInput, input);
  const since = v.since ? parseTimestamp(v.since, 'since') : undefined;
  const until = v.until ? parseTimestamp(v.until, 'until') : undefined;
  if (since && until && since.getTime() >= until.getTime())
    throw fieldError('until', 'must be after since');
  const query: DeliveryLogQuery = {
    ...(v.receiverId ? { receiverId: v.receiverId } : { brandId: v.brandId! }),
    limit: v.limit,
    ...(v.cursor ? { after: decodeKeysetCursor(v.cursor, DELIVERY_ID) } : {}),
    ...(v.status ? { status: v.status } : {}),
    ...(v.eventType ? { eventType: v.eventType } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(v.eventId ? { eventId: v.eventId } : {}),
    ...(v.recordId ? { recordId: v.recordId } : {}),
  };
  if (v.receiverId) await getReceiver(deps, v.receiverId);
  return query;
}

/**
 * One page of the delivery log, newest first, filtered (bounded work per page:
 * selectDeliveryLog), and the cursor of the next ('' at the end). Read through `db`: the
 * caller's snapshot (listDeliveries).
 */
export async function readDeliveryLogPage(
  db: PoolClient,
  query: DeliveryLogQuery,
): Promise<{ rows: Awaited<ReturnType<typeof selectDeliveryLog>>['rows']; nextCursor: string }> {
  const { rows, next } = await selectDeliveryLog(db, query);
  return { rows, nextCursor: next ? encodeKeysetCursor(next) : '' };
}
