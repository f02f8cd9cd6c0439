import { createHmac } from 'node:crypto';
import { AppError } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES } from '@brand/shared/resources';
import { signedByOneOf, type CursorKeys } from '../cursorKeys';

/**
 * The events feed's newest-first cursor: the feed position of the last event of a page,
 * with a MAC that binds it to the brand it was issued for, so a cursor is opaque and
 * tamper-evident like a list's (docs/contract.md: a bad, foreign or altered cursor is 400
 * invalid_cursor). Its keys come from the secrets keys (cursorKeys.ts): the current signs, the
 * previous ones verify too, so cursors live through a rotation of that key (forward positions
 * are plain numbers and need none).
 */
const MAC_BYTES = 12;

function mac(key: Buffer, brandId: string, position: number): Buffer {
  return createHmac('sha256', key)
    .update(`events\n${brandId}\n${position}`)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** The cursor of the page after the event at `position`: "<position base36>.<mac>". */
export function encodeFeedCursor(keys: CursorKeys, brandId: string, position: number): string {
  return `${position.toString(36)}.${mac(keys[0], brandId, position).toString('base64url')}`;
}

const CURSOR_SHAPE = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{16})$/;

const INVALID = LIST_PARAM_MESSAGES.feedCursor;

/** The position a cursor names; 400 invalid_cursor for one not issued for this brand. */
export function decodeFeedCursor(keys: CursorKeys, brandId: string, cursor: string): number {
  const match = CURSOR_SHAPE.exec(cursor);
  const position = match ? parseInt(match[1]!, 36) : NaN;
  if (!match || !Number.isSafeInteger(position) || position < 1) throw invalidCursor();
  const given = Buffer.from(match[2]!, 'base64url');
  if (!signedByOneOf(keys, given, (key) => mac(key, brandId, position))) throw invalidCursor();
  return position;
}

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', INVALID, {
    details: [{ field: 'cursor', message: INVALID }],
  });
}
