import type { RequestHandler } from 'express';

/**
 * Headers on every answer, success or error: nothing here may be cached by a shared cache
 * (it is one brand's data, or a refusal that names a key), and no browser may sniff a JSON
 * body into something executable. Routes that serve public documents relax Cache-Control.
 */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}
