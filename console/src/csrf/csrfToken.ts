import { createHash, timingSafeEqual } from 'node:crypto';
import { ConsoleHttpError } from '../http/consoleHttpError';

/** The name of the hidden form field that carries the session's CSRF token. */
export const CSRF_FIELD = '_csrf';

/**
 * Checks the CSRF token a form posted against the signed-in session's own token (compared as
 * digests in constant time). Throws 403 when it is missing or differs: a page of another
 * site cannot read the token, so it cannot post on the member's behalf.
 */
export function assertCsrfToken(posted: unknown, expected: string): void {
  if (typeof posted === 'string' && posted !== '' && expected !== '') {
    if (timingSafeEqual(digest(posted), digest(expected))) return;
  }
  throw new ConsoleHttpError(
    403,
    'csrf_token_invalid',
    'This form has expired or did not come from your session. Reload the page and try again.',
  );
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
