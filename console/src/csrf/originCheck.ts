import type { RequestHandler } from 'express';
import { ConsoleHttpError } from '../http/consoleHttpError';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The first CSRF defence: a state-changing request must carry `Origin` equal to the console's
 * public origin. Browsers send Origin on every POST (form or fetch), so a missing one means a
 * client that is not a browser form of ours, and is refused too. The second defence is the
 * per-session token (csrfToken.ts), checked once the session is known.
 */
export function originCheck(publicOrigin: string): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (req.get('origin') === publicOrigin) return next();
    next(
      new ConsoleHttpError(
        403,
        'forbidden_origin',
        'This request did not come from a page of the Developers area, so it was refused. Go back, reload the page and try again.',
      ),
    );
  };
}
