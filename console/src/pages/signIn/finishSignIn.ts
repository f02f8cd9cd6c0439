import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { clientAddressKey } from '@brand/shared/httpServer';
import type { ConsoleClients } from '../../clients/consoleClients';
import { readSessionToken, setSessionCookie } from '../../session/sessionCookie';
import { clearReturnPath, hasReturnCookie, readReturnPath } from './returnCookie';

/**
 * The per-client rate-limit key records counts sign-in attempts under (links, passkey
 * challenges, single sign-on starts): a hash of the address, so records never stores it. An
 * IPv6 client counts by its /64, as at the gateway: one host commonly owns a whole /64 and
 * could take a fresh budget from each address in it (a review of 2026-11-30).
 */
export function clientKey(req: Request): string {
  return createHash('sha256').update(clientAddressKey(req.ip)).digest('base64url');
}

/** What records answers when a sign-in opened a session (a link, a passkey, single sign-on). */
export interface OpenedSession {
  session_token: string;
  expires_at: string;
  brands: ReadonlyArray<{ brand?: { id: string } }>;
}

/**
 * The last step of every way in: the session the browser presented ended (its cookie is about to
 * be replaced: a copy of it kept working after the person signed in afresh, a hostile review of
 * 2026-11-30), the new session cookie, then the page to land on: the page the sign-in was asked
 * from (`/sign-in?next=`, kept in returnCookie.ts), else the brand's overview when the session
 * opens exactly one brand (issue 62), else the list of brands. Ending the old one is
 * best effort: records just opened the new one, and the old one still ends at its own expiry.
 */
export async function finishSignIn(
  req: Request,
  res: Response,
  opened: OpenedSession,
  sessions: ConsoleClients['sessions'],
): Promise<void> {
  const previous = readSessionToken(req);
  if (previous !== undefined && previous !== opened.session_token) {
    await sessions('signOut', { session_token: previous }).catch(() => undefined);
  }
  setSessionCookie(res, opened.session_token, new Date(opened.expires_at));
  const back = readReturnPath(req);
  if (hasReturnCookie(req)) clearReturnPath(res);
  const only = opened.brands.length === 1 ? opened.brands[0]?.brand : undefined;
  res.redirect(303, back ?? (only ? `/brands/${only.id}` : '/brands'));
}
