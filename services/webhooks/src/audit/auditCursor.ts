import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppError } from '@brand/shared/errors';

/**
 * The audit log's newest-first cursor (GET /api/v1/audit-log): the position of a page's last
 * entry with a MAC binding it to the brand and the kind filter it was issued for, so a cursor is
 * opaque and tamper-evident like a list's (docs/contract.md: a bad, foreign or altered cursor is
 * 400 invalid_cursor). The key is derived from WEBHOOK_SECRET_KEY, as the events feed's is
 * (feed/feedCursor.ts), under its own name, so neither cursor passes for the other.
 */
export function auditCursorKey(secretKeyBase64: string): Buffer {
  return Buffer.from(
    hkdfSync(
      'sha256',
      Buffer.from(secretKeyBase64, 'base64'),
      Buffer.alloc(0),
      'audit-log-cursor',
      32,
    ),
  );
}

const MAC_BYTES = 12;

function mac(key: Buffer, brandId: string, kind: string, position: number): Buffer {
  return createHmac('sha256', key)
    .update(`audit-log\n${brandId}\n${kind}\n${position}`)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** The cursor of the page after the entry at `position`: "<position base36>.<mac>". */
export function encodeAuditCursor(
  key: Buffer,
  brandId: string,
  kind: string,
  position: number,
): string {
  return `${position.toString(36)}.${mac(key, brandId, kind, position).toString('base64url')}`;
}

const SHAPE = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{16})$/;

const INVALID =
  'cursor is not a next_cursor issued for this audit log and kind (it may be truncated or altered); start again without a cursor.';

/** The position a cursor names; 400 invalid_cursor for one not issued for this brand and kind. */
export function decodeAuditCursor(
  key: Buffer,
  brandId: string,
  kind: string,
  cursor: string,
): number {
  const match = SHAPE.exec(cursor);
  const position = match ? parseInt(match[1]!, 36) : NaN;
  if (!match || !Number.isSafeInteger(position) || position < 1) throw invalidCursor();
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = mac(key, brandId, kind, position);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
  return position;
}

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', INVALID, {
    details: [{ field: 'cursor', message: INVALID }],
  });
}
