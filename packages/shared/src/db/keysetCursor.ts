import { AppError } from '../errors';
import { isRealInstant } from './instant';

/** Where a newest-first page ended: the row's exact created_at (microseconds) and its id. */
export interface KeysetPosition {
  created_at: string;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Whether `at` has the cursors' shape (RFC 3339 UTC with microseconds) and names a real instant. */
export function isCalendarInstant(at: string): boolean {
  return AT.test(at) && isRealInstant(at);
}

/**
 * The cursor of a (created_at desc, id desc) keyset walk: base64url JSON [created_at, id].
 * It only positions the walk (every page is still limited to what the caller may read), so
 * it is validated, not signed.
 */
export function encodeKeysetCursor(p: KeysetPosition): string {
  return Buffer.from(JSON.stringify([p.created_at, p.id])).toString('base64url');
}

/**
 * The position a cursor names, or validation_failed on `cursor` for anything that is not a
 * cursor of this walk (ids must match `idPattern`), never a 500.
 */
export function decodeKeysetCursor(cursor: string, idPattern: RegExp): KeysetPosition {
  const bad = () =>
    new AppError(
      'validation_failed',
      'cursor: is not a cursor of this list (pass next_cursor as given)',
      { details: [{ field: 'cursor', message: 'is not a cursor of this list' }] },
    );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    !isCalendarInstant(parsed[0]) ||
    !idPattern.test(parsed[1])
  )
    throw bad();
  return { created_at: parsed[0], id: parsed[1] };
}
