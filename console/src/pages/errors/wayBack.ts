import type { Request } from 'express';
import type { WayForward } from '../../http/consoleHttpError';

const BRAND_PATH = /^\/brands\/(br_[A-Za-z0-9]{1,64})(?:\/|$)/;

/**
 * The way back from a form the console could not take: the page the form was on (its Referer,
 * when of the console's own origin: never a link elsewhere), else the brand's overview the form
 * belonged to, else the brands list.
 */
export function wayBackOf(req: Pick<Request, 'path' | 'get'>, publicOrigin: string): WayForward {
  const referer = req.get('referer');
  if (referer) {
    try {
      const from = new URL(referer);
      if (from.origin === publicOrigin) {
        return { href: `${from.pathname}${from.search}`, label: 'Back to the form' };
      }
    } catch {
      // not a URL: fall through to the brand's page
    }
  }
  const brand = BRAND_PATH.exec(req.path)?.[1];
  if (brand) return { href: `/brands/${brand}`, label: 'Back to the brand' };
  return { href: '/brands', label: 'Back to your brands' };
}
