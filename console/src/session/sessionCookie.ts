import type { Request, Response } from 'express';

/**
 * The session cookie. `__Host-` makes browsers insist on Secure, Path=/ and no Domain, so no
 * other host (a sibling subdomain included) can set or read it. Always Secure: browsers
 * accept Secure cookies from http://localhost and 127.0.0.1 (the local stack), and refuse a
 * `__Host-` cookie without it; config.ts refuses plain HTTP anywhere but loopback.
 * HttpOnly keeps it from scripts; SameSite=Lax keeps it off cross-site POSTs.
 */
const SESSION_COOKIE = '__Host-console_session';

const TOKEN_FORM = /^[A-Za-z0-9_-]{20,128}$/;

/** The session token the browser presented, if it has the form of one. */
export function readSessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return TOKEN_FORM.test(value) ? value : undefined;
  }
  return undefined;
}

/** Sets the cookie until the session's absolute end (the service enforces idle expiry). */
export function setSessionCookie(res: Response, token: string, expiresAt: Date): void {
  res.append(
    'Set-Cookie',
    `${SESSION_COOKIE}=${token}; Path=/; Expires=${expiresAt.toUTCString()}; HttpOnly; Secure; SameSite=Lax`,
  );
}

export function clearSessionCookie(res: Response): void {
  res.append(
    'Set-Cookie',
    `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`,
  );
}
