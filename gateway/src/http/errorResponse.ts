import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import { type AppError, httpStatusOf, type FieldIssue } from '@brand/shared/errors';
import { requestIdOf } from './requestId';

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

/**
 * Sends an AppError as a REST response: the status from the error table, Retry-After
 * when the error says how long to wait, and WWW-Authenticate on 401 (RFC 6750).
 */
export function sendError(res: Response, err: AppError): void {
  setErrorHeaders(res, err);
  res.status(httpStatusOf(err.code)).json(errorBody(err, requestIdOf(res)));
}

/** The headers an error carries, whatever the body format (REST or JSON-RPC). */
export function setErrorHeaders(res: Pick<ServerResponse, 'setHeader'>, err: AppError): void {
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
