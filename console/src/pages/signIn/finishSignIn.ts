import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { setSessionCookie } from '../../session/sessionCookie';

/**
 * The per-client rate-limit key records counts sign-in attempts under (links, passkey
 * challenges, single sign-on starts): a hash of the address, so records never stores it.
 */
export function clientKey(req: Request): string {
  return createHash('sha256')
    .update(req.ip ?? 'unknown')
    .digest('base64url');
}

/** What records answers when a sign-in opened a session (a link, a passkey, single sign-on). */
export interface OpenedSession {
  session_token: string;
  expires_at: string;
  brands: ReadonlyArray<{ brand?: { id: string } }>;
}

/**
 * The last step of every way in: the session cookie, then the page to land on (the brand's
 * overview when the session opens exactly one brand (issue 62), else the list of brands).
 */
export function finishSignIn(res: Response, opened: OpenedSession): void {
  setSessionCookie(res, opened.session_token, new Date(opened.expires_at));
  const only = opened.brands.length === 1 ? opened.brands[0]?.brand : undefined;
  res.redirect(303, only ? `/brands/${only.id}` : '/brands');
}
