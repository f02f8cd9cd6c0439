import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { AppError, isAppError } from '@brand/shared/errors';
import { NOT_UTF8_MESSAGE, NOT_UTF8_TYPE } from '@brand/shared/httpServer';
import type { Logger } from '@brand/shared/logger';
import { sendError, type ErrorSender } from './errorResponse';
import { pathOf, requestIdOf } from './requestScope';

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
  if (type === NOT_UTF8_TYPE) return new AppError('malformed_request', NOT_UTF8_MESSAGE);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || status === 415) {
    return new AppError('unsupported_media_type', 'The request body must be UTF-8 JSON.');
  }
  if (err instanceof URIError) {
    return new AppError(
      'malformed_request',
      'The request could not be read; check the URL and its percent-encoding.',
    );
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // body-parser hands zlib's own error on (status 400, no `type`; zlib's have a numeric
    // errno): a body that is not gzip, deflate or br as its Content-Encoding said. It once
    // fell through to the URL's message, sending the client to the wrong place.
    if (type === undefined && typeof (err as { errno?: unknown }).errno === 'number') {
      return new AppError(
        'malformed_request',
        'The request body could not be decoded as its Content-Encoding says.',
      );
    }
    if (type === 'request.size.invalid') {
      return new AppError(
        'malformed_request',
        'The request body is not as long as its Content-Length says.',
      );
    }
    return new AppError('malformed_request', 'The request could not be read.');
  }
  return undefined;
}

/**
 * The AppError to answer `err` with, logging what needs an operator: a backing service
 * that was unavailable (warn) and anything unclassified (error, with its cause; the
 * answer is a bare internal_error).
 */
function answerFor(log: Logger, err: unknown, requestId: string, path: string): AppError {
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

/** Answers a request with the error it failed with (see errorAnswer). */
export type ErrorAnswer = (req: IncomingMessage, res: ServerResponse, err: unknown) => void;

/**
 * The one way a failed request is answered, whoever raised the error (the prelude, an
 * express route, a lean path): answerFor's AppError, rendered by the sender of the path it
 * was asked on (`senderFor`: the assistant endpoint's JSON-RPC, else the REST body).
 * Expected refusals are not logged here (the access log has them). A response already
 * under way cannot be answered any more: its connection is closed.
 */
export function errorAnswer(log: Logger, senderFor: (path: string) => ErrorSender): ErrorAnswer {
  return (req, res, err) => {
    const path = pathOf(req.url);
    if (res.headersSent) {
      log.error({ request_id: requestIdOf(res), err, path }, 'request failed mid-answer');
      res.destroy();
      return;
    }
    senderFor(path)(res, answerFor(log, err, requestIdOf(res), path));
  };
}

/** express's last middleware: the errors its routes throw, answered by errorAnswer. */
export function errorHandler(answer: ErrorAnswer): ErrorRequestHandler {
  // four parameters: express tells error handlers from middleware by their arity
  return (err: unknown, req, res, _next) => answer(req, res, err);
}

/** The REST sender for every path but the ones listed. */
export function sendersByPath(
  special: ReadonlyMap<string, ErrorSender>,
): (path: string) => ErrorSender {
  return (path) => special.get(path) ?? sendError;
}
