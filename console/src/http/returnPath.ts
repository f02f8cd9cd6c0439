import type { Request } from 'express';

/**
 * A path of this console to return to after signing in: one relative path, starting with a
 * single "/" (never "//", "/\\" or a scheme, which browsers read as another host), made only of
 * the characters a URL's path and query are sent in (no backslash, no space or control
 * character, which browsers strip or turn into "/" before reading), at most 1,000 characters,
 * with no dot segment in its path, and not a sign-in or sign-out page (which would only ask
 * again, or offer a link someone else requested: login CSRF). Anything else is undefined: the
 * sign-in then lands where it always does.
 */
const RETURN_PATH = /^\/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]{0,999}$/;
/**
 * "/./", "/../" and their "%2e" spellings: a browser removes them before asking, so
 * "/brands/../sign-in/<token>" would be read here as a brand's page and asked for as a sign-in
 * link's (a hostile review of 2026-12-01). No page of the console has one.
 */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;
/** Matched case-insensitively, and percent-decoded: the console's routes ignore case. */
const SIGN_IN_PAGES = /^\/sign-(?:in|out)(?:[/?]|$)/i;

export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !RETURN_PATH.test(value)) return undefined;
  const path = value.split('?', 1)[0]!;
  if (DOT_SEGMENT.test(path)) return undefined;
  return SIGN_IN_PAGES.test(decoded(path)) ? undefined : value;
}

/** The path percent-decoded, or as it is when it does not decode. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

const BRAND_PATH = /^\/brands\/br_[A-Za-z0-9]{1,64}(?=\/|$)/;

/**
 * The page a request refused for want of a session was made from, to return to after signing
 * in: a form's page (its Referer, when of the console's own origin: the console sends
 * Referrer-Policy same-origin), else the brand the form belonged to; a page asked for with GET
 * is its own return path. Undefined when none is safe.
 */
export function returnPathOf(
  req: Pick<Request, 'method' | 'originalUrl' | 'path' | 'get'>,
  publicOrigin: string,
): string | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return safeReturnPath(req.originalUrl);
  const referer = req.get('referer');
  if (referer) {
    try {
      const from = new URL(referer);
      if (from.origin === publicOrigin) {
        const back = safeReturnPath(`${from.pathname}${from.search}`);
        if (back) return back;
      }
    } catch {
      // not a URL: fall through to the brand's page
    }
  }
  return safeReturnPath(BRAND_PATH.exec(req.path)?.[0]);
}

/** The sign-in page's address, carrying where to return after signing in when there is one. */
export function signInHref(returnPath: string | undefined): string {
  return returnPath === undefined ? '/sign-in' : `/sign-in?next=${encodeURIComponent(returnPath)}`;
}
