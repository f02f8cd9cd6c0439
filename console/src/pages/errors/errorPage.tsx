import { status } from '@grpc/grpc-js';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from '@brand/shared/logger';
import { ServiceCallError } from '../../clients/memberCaller';
import { ConsoleHttpError, type WayForward } from '../../http/consoleHttpError';
import { FORM_BODY_LIMIT_KB } from '../../http/formBodyLimit';
import { returnPathOf, signInHref } from '../../http/returnPath';
import { signedInPersonOf } from '../../session/memberSession';
import { Layout } from '../../views/layout';
import { sendPage } from '../../views/render';
import { wayBackOf } from './wayBack';

/** HTTP status of a service's refusal, when a page does not handle it itself. */
const HTTP_OF_GRPC: Partial<Record<status, number>> = {
  [status.INVALID_ARGUMENT]: 400,
  [status.UNAUTHENTICATED]: 401,
  [status.PERMISSION_DENIED]: 403,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.FAILED_PRECONDITION]: 422,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.UNAVAILABLE]: 503,
  // a method a service still on the previous release lacks (clients/memberCaller.ts)
  [status.UNIMPLEMENTED]: 503,
};

const TITLES: Record<number, string> = {
  400: 'That did not work',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Already exists',
  413: 'Too much text',
  422: 'That did not work',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/**
 * The one error answer: a page with the status, a stable code (also in X-Console-Error) and a
 * sentence. Refusals are 4xx with the service's own message; only unexpected failures are
 * 500, logged with their stack, and they show nothing of it.
 */
export function errorPages(log: Logger, publicOrigin: string): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let httpStatus = 500;
    let code = 'internal_error';
    let message = 'Something went wrong on our side. Try again; if it keeps happening, tell us.';
    let wayForward: WayForward | undefined;
    if (err instanceof ConsoleHttpError) {
      ({ status: httpStatus, code, message, wayForward } = err);
    } else if (err instanceof ServiceCallError && HTTP_OF_GRPC[err.grpcStatus] !== undefined) {
      httpStatus = HTTP_OF_GRPC[err.grpcStatus]!;
      code = err.code;
      message = httpStatus === 404 ? 'There is nothing here.' : err.message;
      if (err.retryAfterSeconds !== undefined)
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
    } else if (isTooLargeBody(err)) {
      // a paste gone wrong: say what happened and lead back to the form (the probe of
      // 2026-11-30 met a dead end that told them to reload, which lost nothing but helped nothing)
      httpStatus = 413;
      code = 'payload_too_large';
      message = `That is too much text: a form holds at most ${FORM_BODY_LIMIT_KB} kB, and one of this form's fields holds more. Go back (your browser's Back button keeps what you typed), shorten the long field and send the form again.`;
      wayForward = wayBackOf(req, publicOrigin);
    } else if (isBodyError(err)) {
      httpStatus = 400;
      code = 'malformed_request';
      message = 'The form could not be read. Reload the page and try again.';
    } else {
      log.error({ err, path: pathForLog(req), method: req.method }, 'request failed');
    }
    if (res.headersSent) return;
    // Sign in leads back to the page the refused request came from (http/returnPath.ts)
    if (wayForward?.href === '/sign-in') {
      wayForward = { ...wayForward, href: signInHref(returnPathOf(req, publicOrigin)) };
    }
    res.setHeader('X-Console-Error', code);
    // a signed-in person keeps the header (address, Sign out); it names no brand, so a 404 for
    // another brand's id shows nothing of that brand
    sendPage(
      res,
      <Layout title={TITLES[httpStatus] ?? 'Error'} person={signedInPersonOf(res)}>
        <h1>{TITLES[httpStatus] ?? 'Something went wrong'}</h1>
        <p>{message}</p>
        {wayForward && (
          <p>
            <a class="button" href={wayForward.href}>
              {wayForward.label}
            </a>
          </p>
        )}
        <p class="hint">
          Code: <code>{code}</code>
        </p>
        <p>
          <a href="/brands">Back to the Developers area</a>
        </p>
      </Layout>,
      httpStatus,
    );
  };
}

/** body-parser's refusal of a body over its limit. */
function isTooLargeBody(err: unknown): boolean {
  return (err as { type?: unknown } | null)?.type === 'entity.too.large';
}

/** body-parser's errors (too large, malformed) carry a 4xx status of their own. */
function isBodyError(err: unknown): boolean {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' && s >= 400 && s < 500;
}

/**
 * The request's path as logged: the route's pattern where one matched, so the bearer tokens that
 * some paths carry (a sign-in link, an invitation) never reach the logs (SECURITY.md "What is
 * logged"); else the path with every segment long enough to be a token masked.
 */
export function pathForLog(req: {
  path: string;
  baseUrl: string;
  route?: { path?: unknown };
}): string {
  const pattern = req.route?.path;
  if (typeof pattern === 'string') return `${req.baseUrl}${pattern}`;
  return req.path.replace(/[^/]{20,}/g, ':masked');
}
