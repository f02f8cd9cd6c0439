import { createHmac } from 'node:crypto';
import { AppError } from '@brand/shared/errors';
import { LIST_PARAM_MESSAGES } from '@brand/shared/resources';
import { signedByOneOf, type CursorKeys } from '../cursorKeys';

/**
 * The audit log's newest-first cursor (GET /api/v1/audit-log): the position of a page's last
 * entry with a MAC binding it to the brand and the kind filter it was issued for, so a cursor is
 * opaque and tamper-evident like a list's (docs/contract.md: a bad, foreign or altered cursor is
 * 400 invalid_cursor). Its keys come from the secrets keys as the events feed's do
 * (cursorKeys.ts), under its own name, so neither cursor passes for the other.
 */
const MAC_BYTES = 12;

function mac(key: Buffer, brandId: string, kind: string, position: number): Buffer {
  return createHmac('sha256', key)
    .update(`audit-log\n${brandId}\n${kind}\n${position}`)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** The cursor of the page after the entry at `position`: "<position base36>.<mac>". */
export function encodeAuditCursor(
  keys: CursorKeys,
  brandId: string,
  kind: string,
  position: number,
): string {
  return `${position.toString(36)}.${mac(keys[0], brandId, kind, position).toString('base64url')}`;
}

const SHAPE = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{16})$/;

const INVALID = LIST_PARAM_MESSAGES.auditCursor;

/** The position a cursor names; 400 invalid_cursor for one not issued for this brand and kind. */
export function decodeAuditCursor(
  keys: CursorKeys,
  brandId: string,
  kind: string,
  cursor: string,
): number {
  const match = SHAPE.exec(cursor);
  const position = match ? parseInt(match[1]!, 36) : NaN;
  if (!match || !Number.isSafeInteger(position) || position < 1) throw invalidCursor();
  const given = Buffer.from(match[2]!, 'base64url');
  if (!signedByOneOf(keys, given, (key) => mac(key, brandId, kind, position)))
    throw invalidCursor();
  return position;
}

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', INVALID, {
    details: [{ field: 'cursor', message: INVALID }],
  });
}
