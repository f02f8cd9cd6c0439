import { EVENT_TYPES, type EventTypeName } from '@brand/shared/enums';
import type { CursorKeys } from '../cursorKeys';
import { AppError } from '@brand/shared/errors';
import type { Pool } from '@brand/shared/db';
import { DEFAULT_LIMIT, isValidLimit, normalizeSince } from '@brand/shared/resources';
import { deliveryBody } from '../send/sign';
import { decodeFeedCursor, encodeFeedCursor, type FeedCursor } from './feedCursor';
import { readFeedPage, type FeedQuery } from './feedRepo';

/** What the feed needs: the store, and the keys its cursors are signed and checked with. */
export interface FeedDeps {
  pool: Pool;
  cursorKeys: CursorKeys;
}

/** One page request, as the gateway sends it (ListFeedEventsRequest, domain-typed). */
export interface FeedRequest {
  brandId: string;
  limit: number;
  cursor: string;
  forward: boolean;
  after: number;
  types: readonly EventTypeName[];
  recordId: string;
  since: string;
  until: string;
}

export interface FeedPage {
  /** Each event as the JSON text a receiver gets as its delivery body, in page order. */
  eventsJson: string[];
  nextCursor: string;
  nextAfter: number;
  /** The feed's head: the brand's newest position when the page was read (0: none yet). */
  feedVersion: number;
}

const EXPIRED =
  'This cursor or position is older than the kept event history (docs/api.md "Events"): events after it may be gone. Start again from the first page, or follow from after=0 (the oldest event kept).';

/**
 * Why a position past the head is refused rather than answered empty: no event has it yet,
 * so it was never a next_after of this brand's feed (a checkpoint restored from another
 * environment or brand, a typo). Answered empty, such a follower would wait until the feed
 * grew past it and silently skip every event up to there.
 */
function beyondHead(after: number, head: number): AppError {
  const from =
    head === 0
      ? 'The feed has no events yet: follow from after=0.'
      : `Follow from after=${head} for new events only, or from after=0 for every event kept.`;
  const message =
    `after=${after} is beyond the head of this brand's feed (${head}): no event has that position yet, ` +
    `so it is not a next_after this feed gave. ${from}`;
  return new AppError('position_beyond_head', message, {
    details: [{ field: 'after', message }],
  });
}

/**
 * One page of a brand's events feed (docs/api.md "Events"). Newest first by feed position
 * from `cursor` (next_cursor on a full page), or oldest first after `after` (next_after:
 * followFrom). 410 cursor_expired where reading on could silently skip what retention dropped
 * (isExpired); an `after` beyond the head read with the page is 400 position_beyond_head.
 * Throws invalid_cursor, invalid_parameter (a missing brand among them).
 */
export async function listFeedEvents(deps: FeedDeps, req: FeedRequest): Promise<FeedPage> {
  if (req.brandId === '') throw badParameter('brand_id', 'brand_id is required.');
  const limit = req.limit === 0 ? DEFAULT_LIMIT : req.limit;
  if (!isValidLimit(limit)) throw badParameter('limit', 'limit must be an integer from 1 to 200.');
  if (req.forward && req.cursor !== '')
    throw badParameter('cursor', 'cursor and after cannot be combined; use one.');
  if (!Number.isSafeInteger(req.after) || req.after < 0)
    throw badParameter('after', 'after must be a feed position (a whole number, 0 or more).');
  const cursor =
    req.cursor === '' ? undefined : decodeFeedCursor(deps.cursorKeys, req.brandId, req.cursor);
  const before = cursor?.position;
  const query: FeedQuery = {
    brandId: req.brandId,
    limit,
    direction: req.forward
      ? { newestFirst: false, after: req.after }
      : { newestFirst: true, before },
    types: req.types,
    recordId: req.recordId === '' ? undefined : req.recordId,
    since: timeBound('since', req.since),
    until: timeBound('until', req.until),
  };
  const read = await readFeedPage(deps.pool, query);
  if (isExpired(req.forward ? { after: req.after } : { cursor }, read.expiredThrough))
    throw new AppError('cursor_expired', EXPIRED);
  // the head comes from the page's own snapshot (feedRepo.ts): never a head older than the page
  if (req.forward && req.after > read.version) throw beyondHead(req.after, read.version);
  const last = read.rows[read.rows.length - 1];
  return {
    eventsJson: read.rows.map(deliveryBody),
    nextCursor:
      !req.forward && last !== undefined && read.rows.length === limit
        ? encodeFeedCursor(deps.cursorKeys, req.brandId, {
            position: last.position,
            // the walk's first page's value, carried unchanged (isExpired says why)
            expiredThrough: cursor?.expiredThrough ?? read.expiredThrough,
          })
        : '',
    nextAfter: req.forward ? followFrom(req, limit, read) : 0,
    feedVersion: read.version,
  };
}

/**
 * Whether reading on from a bound could silently skip what retention dropped. Retention drops
 * by created_at, and a late event's position is above events it is older than, so the dropped
 * positions need not be a prefix: all the feed knows is the greatest, `expiredThrough`.
 * - Following reads the positions above `after`: one was dropped exactly when
 *   after < expiredThrough. A follower at expiredThrough (say at the head of a brand idle past
 *   the retention) lost nothing after it and reads on; after=0 is the oldest kept.
 * - A cursor reads the positions below its own, toward the oldest events, the end retention
 *   always drops from: a walk that meets what was dropped there ends where a walk started now
 *   ends, as a list does. Refused: a cursor at or below expiredThrough of a walk that began
 *   before expiredThrough last rose (the cursor records the value its walk's first page read):
 *   a drop since the walk began reached at or above the cursor, so it may have taken what the
 *   walk still had to read, and the pages it read came from before it (the walk straddles it).
 *   A walk whose recorded value is the current one began after the last drop: what it meets
 *   below expiredThrough (positions kept below a late event retention dropped) is what a walk
 *   started now meets, so it reads on. Before the cursor carried the value it was refused, and
 *   so was every fresh walk the 410 advised whose page ended on such a position.
 * - Why the first page's value, carried unchanged, and not the latest page's: take a walk begun
 *   before a drop whose first page after it starts above expiredThrough (so it reads on, the
 *   drop wholly below) and ends at or below it. With the latest page's value the next page
 *   would read on; whether a walk straddling a drop is refused would then turn on where its
 *   pages happen to end. With the first page's, every walk that began before a drop is
 *   answered exactly as before (refused once its cursor is at or below expiredThrough), and only
 *   walks begun after the last drop read on; after a 410 the walk started again records the
 *   current value and goes through.
 * - A cursor of the older shape records 0 (feedCursor.ts): the rule above with 0 is the rule it
 *   was issued under (refused at or below any expiredThrough).
 * - What this cannot see: expiredThrough rises only when a drop takes a position above it, so a
 *   later drop wholly below the recorded value (a week of events that sat below a late event
 *   dropped before) leaves it unchanged, and such a walk reads on without those events, as a
 *   walk started now would.
 */
function isExpired(
  bound: { after: number } | { cursor: FeedCursor | undefined },
  expiredThrough: number,
): boolean {
  if ('after' in bound) return bound.after > 0 && bound.after < expiredThrough;
  const { cursor } = bound;
  return (
    cursor !== undefined &&
    expiredThrough > cursor.expiredThrough &&
    cursor.position <= expiredThrough
  );
}

/**
 * Where a follower reads on from. A full page: its last event's position (more may match). A
 * page that is not full holds every event the query matches up to the head read with it: one
 * statement, one snapshot, and positions are handed out under the brand's head-row lock, held
 * by the storing transaction until it commits (eventRepo.ts insertEvents), so a snapshot that
 * sees a head sees every stored position up to it. So the head, and a narrow filter over a long
 * history is not rescanned on every poll. `type`, `record_id` and `since` are fixed properties
 * of an event, and a later event gets a later position whatever its created_at. Not with
 * `until`: a follower that moves its `until` on between polls must still get the events between
 * its old bound and the head, so there it stays the last event's position (`after` if none).
 */
function followFrom(
  req: FeedRequest,
  limit: number,
  read: { rows: ReadonlyArray<{ position: number }>; version: number },
): number {
  const last = read.rows[read.rows.length - 1];
  if (last !== undefined && (read.rows.length === limit || req.until !== '')) return last.position;
  return req.until !== '' ? req.after : read.version;
}

function timeBound(field: 'since' | 'until', value: string): string | undefined {
  if (value === '') return undefined;
  const normalized = normalizeSince(value);
  if (normalized === undefined)
    throw badParameter(field, `${field} must be an RFC 3339 timestamp with a time zone.`);
  return normalized;
}

function badParameter(field: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { details: [{ field, message }] });
}

/** Event types from the wire: UNSPECIFIED and unknown numbers are refused by field. */
export const feedTypes = (values: readonly number[]): EventTypeName[] =>
  values.map((value) => EVENT_TYPES.requireName(value, 'type'));
