import type { EventTypeName } from '@brand/shared/enums';
import { AppError } from '@brand/shared/errors';
import { DEFAULT_LIMIT, isValidLimit, normalizeSince } from '@brand/shared/resources';
import { selectDeliveriesOfEvents } from '../log/deliveryRepo';
import { withAttempts, type DeliveryView } from '../log/deliveryService';
import { readSnapshot } from '../log/snapshotRead';
import { decodeFeedCursor, encodeFeedCursor } from './feedCursor';
import { readFeedPage } from './feedRepo';
import type { FeedDeps } from './feedService';

/** The Events page's question: the feed's filters, newest first. */
export interface OutcomesQuery {
  brandId: string;
  limit: number;
  cursor: string;
  type: EventTypeName | undefined;
  since: string;
  until: string;
  eventId: string;
  recordId: string;
}

/** One event and what became of it at every receiver. */
export interface EventOutcomeView {
  id: string;
  type: EventTypeName;
  createdAt: string;
  objectJson: string;
  deliveries: Array<DeliveryView & { receiver_label: string }>;
}

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;
const RECORD_ID = /^[A-Za-z0-9_]{1,64}$/;

/**
 * One page of the brand's events, newest first by feed position (the feed's order and
 * cursor), each with its deliveries and their attempts (two more statements a page, whatever
 * its size, read in one snapshot). Test deliveries are not events of the brand and are left
 * out. Throws invalid_parameter for a bad filter, invalid_cursor for another brand's cursor.
 */
export async function listEventOutcomes(
  deps: FeedDeps,
  q: OutcomesQuery,
): Promise<{ events: EventOutcomeView[]; nextCursor: string }> {
  const limit = q.limit === 0 ? DEFAULT_LIMIT : q.limit;
  if (!isValidLimit(limit)) throw bad('limit', 'must be a whole number from 1 to 200.');
  if (q.eventId !== '' && !EVENT_ID.test(q.eventId))
    throw bad('event_id', 'must be an event id (evt_...).');
  if (q.recordId !== '' && !RECORD_ID.test(q.recordId))
    throw bad('record_id', 'must be a record id (po_..., sub_..., cmp_...).');
  const cursor =
    q.cursor === '' ? undefined : decodeFeedCursor(deps.cursorKeys, q.brandId, q.cursor);
  const read = await readFeedPage(deps.pool, {
    brandId: q.brandId,
    limit,
    direction: { newestFirst: true, before: cursor?.position },
    types: q.type ? [q.type] : [],
    recordId: q.recordId || undefined,
    eventId: q.eventId || undefined,
    since: time('since', q.since),
    until: time('until', q.until),
  });
  // the deliveries and their attempts as of one moment, or a worker's attempt committed
  // between the two reads shows a delivery queued beside its attempt 1 (delivery pages too)
  const deliveries = await readSnapshot(deps.pool, async (db) =>
    withAttempts(db, await selectDeliveriesOfEvents(db, q.brandId, read.rows)),
  );
  const byEvent = new Map<string, typeof deliveries>();
  for (const d of deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
  const last = read.rows[read.rows.length - 1];
  return {
    events: read.rows.map((e) => ({
      id: e.id,
      type: e.type,
      createdAt: e.createdAt,
      objectJson: e.objectJson,
      deliveries: byEvent.get(e.id) ?? [],
    })),
    nextCursor:
      last !== undefined && read.rows.length === limit
        ? encodeFeedCursor(deps.cursorKeys, q.brandId, {
            position: last.position,
            // the feed's cursor, carried as the feed carries it (feedService.ts isExpired)
            expiredThrough: cursor?.expiredThrough ?? read.expiredThrough,
          })
        : '',
  };
}

function time(field: string, value: string): string | undefined {
  if (value === '') return undefined;
  const normalized = normalizeSince(value);
  if (normalized === undefined) throw bad(field, 'must be an RFC 3339 timestamp.');
  return normalized;
}

function bad(field: string, message: string): AppError {
  return new AppError('invalid_parameter', `${field}: ${message}`, {
    details: [{ field, message }],
  });
}
