import type { Request, Response } from 'express';
import { safeReturnPath } from '../../http/returnPath';

/**
 * Where to land after signing in, kept from the sign-in page (`/sign-in?next=`) to whichever way
 * in finishes it: the emailed link (opened in the same browser, within its 15 minutes), a
 * passkey or single sign-on (a round trip through the provider). A cookie, because the mailed
 * link is minted by records and carries nothing of the console's. Only a safe same-origin path
 * (http/returnPath.ts) is written, and it is checked again when read: a cookie set any other
 * way (none can be: `__Host-`, HttpOnly) is never a redirect elsewhere. Half an hour.
 */
const COOKIE = '__Host-console_return';
const ATTRIBUTES = 'Path=/; HttpOnly; Secure; SameSite=Lax';

export function keepReturnPath(res: Response, path: string): void {
  res.append('Set-Cookie', `${COOKIE}=${encodeURIComponent(path)}; Max-Age=1800; ${ATTRIBUTES}`);
}

/** The return path this browser presented, when it is a safe one. */
export function readReturnPath(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== COOKIE) continue;
    try {
      return safeReturnPath(decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** True when the browser presented the cookie at all (then it is cleared once spent). */
export function hasReturnCookie(req: Request): boolean {
  return (req.headers.cookie ?? '').split(';').some((p) => p.split('=')[0]?.trim() === COOKIE);
}

export function clearReturnPath(res: Response): void {
  res.append('Set-Cookie', `${COOKIE}=; Max-Age=0; ${ATTRIBUTES}`);
}
