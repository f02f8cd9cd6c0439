import type { ServerResponse } from 'node:http';
import { type AppError, httpStatusOf, type FieldIssue } from '@brand/shared/errors';
import { sendJson } from './jsonResponse';
import { requestIdOf, scopeOf } from './requestScope';

/** The JSON body of every REST error: `{ error: { code, message, request_id, details? } }`. */
export interface ErrorBody {
  error: { code: string; message: string; request_id: string; details?: FieldIssue[] };
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      request_id: requestId,
      ...(err.details ? { details: err.details } : {}),
    },
  };
}

/** How an endpoint renders an AppError as its whole answer (REST's body, or JSON-RPC's). */
export type ErrorSender = (res: ServerResponse, err: AppError) => void;

/**
 * Sends an AppError as a REST response: the status from the error table, Retry-After
 * when the error says how long to wait, and WWW-Authenticate on 401 (RFC 6750).
 */
export const sendError: ErrorSender = (res, err) => {
  setErrorHeaders(res, err);
  sendJson(res, httpStatusOf(err.code), JSON.stringify(errorBody(err, requestIdOf(res))));
};

/**
 * The headers an error carries, whatever the body format (REST or JSON-RPC); the code is
 * kept on the request scope for usage counting and the request log.
 */
export function setErrorHeaders(res: ServerResponse, err: AppError): void {
  const scope = scopeOf(res);
  if (scope) scope.errorCode = err.code;
  if (err.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(err.retryAfterSeconds));
  if (httpStatusOf(err.code) === 401) {
    res.setHeader(
      'WWW-Authenticate',
      err.code === 'invalid_key'
        ? 'Bearer realm="api", error="invalid_token"'
        : 'Bearer realm="api"',
    );
  }
}
