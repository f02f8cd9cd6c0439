import type { RequestHandler } from 'express';

/**
 * The policy of every page: only this origin's own script, style and images; forms post only
 * here; no framing; no <base>. No inline script or style anywhere (pages use
 * /static/console.css and the two small files beside it).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Security headers on every answer. Pages show private data (and, once, secrets), so nothing
 * is cached unless a route says otherwise; the sign-in link carries its token in the path,
 * so no Referer ever leaves for another origin.
 */
export function securityHeaders(opts: { https: boolean }): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on form
    // posts, and the Origin check needs the real one. Nothing leaves for other origins.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    res.setHeader('Cache-Control', 'no-store');
    if (opts.https) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
  };
}
