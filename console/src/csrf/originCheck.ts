import type { RequestHandler } from 'express';
import { ConsoleHttpError } from '../http/consoleHttpError';
import { publicAddressOf } from './publicAddress';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The first CSRF defence: a state-changing request must carry `Origin` equal to the console's
 * public origin. Browsers send Origin on every POST (form or fetch), so a missing one means a
 * client that is not a browser form of ours, and is refused too. The second defence is the
 * per-session token (csrfToken.ts), checked once the session is known. A page opened at another
 * loopback name of the console is sent to the public origin first (publicAddress.ts), and the
 * refusal names that origin: at any other address every form would be refused.
 */
export function originCheck(publicOrigin: string): RequestHandler {
  const publicAddress = publicAddressOf(publicOrigin);
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) {
      const there = req.method === 'OPTIONS' ? undefined : publicAddress(req);
      // 302, not 308: a browser would keep a permanent one after the configuration changed.
      if (there !== undefined) return res.redirect(302, there);
      return next();
    }
    if (req.get('origin') === publicOrigin) return next();
    next(
      new ConsoleHttpError(
        403,
        'forbidden_origin',
        `This request did not come from a page of the Developers area at ${publicOrigin}, so it was refused. Open the Developers area at ${publicOrigin}, reload the page and try again.`,
        { href: `${publicOrigin}/sign-in`, label: `Open ${publicOrigin}` },
      ),
    );
  };
}
