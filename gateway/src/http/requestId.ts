import type { RequestHandler, Response } from 'express';
import { safeRequestId } from '@brand/shared/grpc';
import { newId } from '@brand/shared/ids';

/**
 * Gives every request an id, echoed in X-Request-Id, written in every log line and error
 * body, and passed to the services in gRPC metadata.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    // A caller's own id is kept only in a bounded, log-safe form; otherwise we mint one.
    const id = safeRequestId(req.get('x-request-id')) ?? newId('request');
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** The id requestId() assigned to this response's request. */
export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}
