import { createHmac } from 'node:crypto';
import { AppError } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES } from '@brand/shared/resources';
import { signedByOneOf, type CursorKeys } from '../cursorKeys';

/**
 * The events feed's newest-first cursor: the feed position of the last event of a page, and the
 * brand's expired_through as the walk's first page read it (feedService.ts isExpired says why
 * the walk carries it), with a MAC that binds both to the brand it was issued for, so a cursor
 * is opaque and tamper-evident like a list's (docs/contract.md: a bad, foreign or altered cursor
 * is 400 invalid_cursor). Its keys come from the secrets keys (cursorKeys.ts): the current
 * signs, the previous ones verify too, so cursors live through a rotation of that key (forward
 * positions are plain numbers and need none).
 *
 * Two shapes: "<position>.<expired>.<mac>" (base36 numbers) and, while nothing was recorded
 * (0: the brand had no drop when the walk began), "<position>.<mac>", the shape every cursor had
 * before the walk carried the value. That older shape means exactly "recorded 0", so a cursor
 * issued by the release before this one reads on under the rule it was issued under, and a
 * brand without drops gets cursors that release's pods (gateway and webhooks) take during a
 * rolling deploy. The gateway checks both shapes (v1EventsList/input.ts FEED_CURSOR).
 */
export interface FeedCursor {
  /** The position of the last event of the page that gave it: the next page is below it. */
  position: number;
  /** The brand's expired_through as the walk's first page read it (0: none). */
  expiredThrough: number;
}

const MAC_BYTES = 12;

function mac(key: Buffer, brandId: string, cursor: FeedCursor): Buffer {
  // the two shapes sign different texts, so neither's MAC passes for the other's
  const text =
    cursor.expiredThrough === 0
      ? `events\n${brandId}\n${cursor.position}`
      : `events-walk\n${brandId}\n${cursor.position}\n${cursor.expiredThrough}`;
  return createHmac('sha256', key).update(text).digest().subarray(0, MAC_BYTES);
}

/** The cursor of the page after the event at `cursor.position`. */
export function encodeFeedCursor(keys: CursorKeys, brandId: string, cursor: FeedCursor): string {
  const signature = mac(keys[0], brandId, cursor).toString('base64url');
  const recorded = cursor.expiredThrough === 0 ? '' : `${cursor.expiredThrough.toString(36)}.`;
  return `${cursor.position.toString(36)}.${recorded}${signature}`;
}

/** Each number at most 11 base36 digits: every safe integer fits. The longest is 40 characters. */
const CURSOR_SHAPE = /^([0-9a-z]{1,11})\.(?:([0-9a-z]{1,11})\.)?([A-Za-z0-9_-]{16})$/;

const INVALID = LIST_PARAM_MESSAGES.feedCursor;

/** What a cursor names; 400 invalid_cursor for one not issued for this brand. */
export function decodeFeedCursor(keys: CursorKeys, brandId: string, text: string): FeedCursor {
  const match = CURSOR_SHAPE.exec(text);
  if (!match) throw invalidCursor();
  const position = parseInt(match[1]!, 36);
  const expiredThrough = match[2] === undefined ? 0 : parseInt(match[2], 36);
  if (!Number.isSafeInteger(position) || position < 1) throw invalidCursor();
  // a recorded 0 has one spelling only, the older shape
  if (!Number.isSafeInteger(expiredThrough) || (match[2] !== undefined && expiredThrough < 1))
    throw invalidCursor();
  const cursor = { position, expiredThrough };
  const given = Buffer.from(match[3]!, 'base64url');
  if (!signedByOneOf(keys, given, (key) => mac(key, brandId, cursor))) throw invalidCursor();
  return cursor;
}

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', INVALID, {
    details: [{ field: 'cursor', message: INVALID }],
  });
}
