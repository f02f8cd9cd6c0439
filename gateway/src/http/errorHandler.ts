import type { ErrorRequestHandler } from 'express';
import { AppError, isAppError } from '@brand/shared/errors';
import type { Logger } from '@brand/shared/logger';
import { MCP_PATH, sendRpcAppError } from '../mcp/rpcErrorResponse';
import { sendError } from './errorResponse';
import { requestIdOf } from './requestId';

/**
 * Errors raised by express itself (a path with malformed percent-encoding) and by
 * body-parser carry an HTTP `status`, and body-parser a `type`: they are the client's
 * fault, so they become 4xx codes, never a 500.
 */
function fromHttpError(err: unknown): AppError | undefined {
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large' || status === 413)
    return new AppError('payload_too_large', 'The request body is too large.');
  if (type === 'entity.parse.failed')
    return new AppError('malformed_request', 'The request body is not valid JSON.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || status === 415) {
    return new AppError('unsupported_media_type', 'The request body must be UTF-8 JSON.');
  }
  if (err instanceof URIError || (typeof status === 'number' && status >= 400 && status < 500)) {
    return new AppError(
      'malformed_request',
      'The request could not be read; check the URL and its percent-encoding.',
    );
  }
  return undefined;
}

/**
 * The last middleware: renders any error as the REST error body. Expected refusals are
 * not logged here (the access log has them); 5xx and unclassified errors are logged with
 * stack and cause, and answered without either.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    send(req.path, res, answerFor(log, err, requestIdOf(res), req.path));
  };
}

/**
 * The AppError to answer `err` with, logging what needs an operator: a backing service
 * that was unavailable (warn) and anything unclassified (error, with its cause; the
 * answer is a bare internal_error). Shared with the lean list route, so both answer and
 * log alike.
 */
export function answerFor(log: Logger, err: unknown, requestId: string, path: string): AppError {
  const appError = isAppError(err) ? err : fromHttpError(err);
  if (appError && appError.code !== 'internal_error') {
    if (appError.code === 'service_unavailable') {
      log.warn(
        { request_id: requestId, err: appError.cause ?? appError },
        'backing service unavailable',
      );
    }
    return appError;
  }
  log.error({ request_id: requestId, err: appError?.cause ?? err, path }, 'request failed');
  return new AppError('internal_error', 'An internal error occurred.');
}

/** REST error body, or JSON-RPC on the assistant endpoint (its clients parse nothing else). */
function send(path: string, res: Parameters<typeof sendError>[0], err: AppError): void {
  if (path === MCP_PATH) sendRpcAppError(res, err);
  else sendError(res, err);
}
