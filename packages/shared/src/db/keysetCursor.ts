import { AppError } from '../errors';

/** Where a newest-first page ended: the row's exact created_at (microseconds) and its id. */
export interface KeysetPosition {
  created_at: string;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * Whether `at` has the cursor's shape and names a real instant: the date and time read back the
 * same (JavaScript takes 30 February or 24:00 and moves on; PostgreSQL refuses them, which would
 * be a 500), in a year PostgreSQL and JavaScript agree on.
 */
function isCalendarInstant(at: string): boolean {
  if (!AT.test(at) || at.startsWith('0000')) return false;
  const ms = Date.parse(at);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === at.slice(0, 19);
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
