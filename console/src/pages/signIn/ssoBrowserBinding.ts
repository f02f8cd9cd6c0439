import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * The cookie that binds a single sign-on to the browser that started it: 32 random bytes,
 * sent to records (which keeps only their hash with the state) when starting and again at the
 * callback. A callback carrying someone else's state, in a browser that did not start it, has
 * no matching cookie and is refused, so a stolen or planted callback URL signs nobody in.
 * `__Host-`, HttpOnly, Secure; SameSite=Lax, which browsers still send on the provider's
 * top-level redirect back (a GET). Ten minutes, as records keeps the state.
 */
const COOKIE = '__Host-console_sso';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

export function newBrowserBinding(res: Response): string {
  const value = randomBytes(32).toString('base64url');
  res.append(
    'Set-Cookie',
    `${COOKIE}=${value}; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax`,
  );
  return value;
}

/** The binding this browser presented, or '' (records then finds no sign-in for it). */
export function readBrowserBinding(req: Request): string {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return VALUE.test(value) ? value : '';
  }
  return '';
}

export function clearBrowserBinding(res: Response): void {
  res.append('Set-Cookie', `${COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`);
}
